// Package redact is the one place Braid takes secrets out of URLs: the
// credentials (user:password@) of any URL it shows or stores for display,
// and, for the Referer it sends to mirrors, the query and fragment too, which
// often carry signed-URL tokens meant for the origin alone.
package redact

import (
	"net/url"
	"regexp"
	"strings"
)

// userInfo matches the user[:password]@ of every URL in a text: after a
// scheme's "://", anything up to an "@" that comes before the end of the
// authority (a "/", "?", "#" or white space).
var userInfo = regexp.MustCompile(`(?i)\b([a-z][a-z0-9+.-]*://)[^/?#\s@]*@`)

// Text returns s with the credentials of every URL in it removed: for
// messages and anything stored to be shown. Safe for concurrent use.
func Text(s string) string {
	if !strings.Contains(s, "@") {
		return s // no credentials; the regexp costs a queue of many files milliseconds
	}
	return userInfo.ReplaceAllString(s, "$1")
}

// query matches the query and fragment of every URL in a text.
var query = regexp.MustCompile(`(?i)\b([a-z][a-z0-9+.-]*://[^\s?#"']*)[?#][^\s"']*`)

// Query returns s with the query and fragment of every URL in it removed:
// for what a log or an error tells of a URL that may carry a token there
// (a private tracker's passkey, a signed link).
func Query(s string) string {
	if !strings.ContainsAny(s, "?#") {
		return s
	}
	return query.ReplaceAllString(s, "$1")
}

// URL returns raw without credentials, for display and blame; a string
// that does not parse keeps only what follows its last "@".
func URL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		if i := strings.LastIndex(raw, "@"); i >= 0 {
			return "…" + raw[i:]
		}
		return raw
	}
	return Parsed(u)
}

// Parsed is URL for a parsed URL; u is not changed.
func Parsed(u *url.URL) string {
	c := *u
	c.User = nil
	return c.String()
}

// Referer is the origin URL as a Referer sent to other servers may carry
// it: scheme, host and path only. No credentials, which would hand the
// origin's password to every mirror (RFC 9110 §10.1.3), and no query or
// fragment, where signed URLs keep their tokens. "" when raw is not an
// absolute URL with a host.
func Referer(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || !u.IsAbs() || u.Host == "" {
		return ""
	}
	c := url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path, RawPath: u.RawPath}
	return c.String()
}
