package queue

import "regexp"

// userInfo matches the user[:password]@ of every URL in a text: after a
// scheme's "://", anything up to an "@" that comes before the end of the
// authority (a "/", "?", "#" or white space).
var userInfo = regexp.MustCompile(`(?i)\b([a-z][a-z0-9+.-]*://)[^/?#\s@]*@`)

// Redact returns s with the credentials (user:password@) of every URL in
// it removed, for anything shown to the user or kept where it is shown: a
// job's source and error. A URL the engine fetches keeps its credentials;
// they are stored with the job's mirrors, never displayed. Safe for
// concurrent use.
func Redact(s string) string {
	return userInfo.ReplaceAllString(s, "$1")
}
