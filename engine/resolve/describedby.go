package resolve

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"braid/engine/metalink"
	"braid/engine/redact"
	"braid/engine/signature"
	"braid/engine/transport"
)

// adoptDescribed takes from match, the file a describedby metalink gives
// for the origin's file (its size and hashes agree with the origin's),
// what the origin's headers cannot say: its mirrors, after the origin's
// (RFC 6249 §4: the metalink is a fuller description of the same file),
// its signature and its metadata. Mirrors already listed are not added
// twice, and schemes Braid cannot fetch are skipped.
func adoptDescribed(file *metalink.File, match *metalink.File) {
	seen := map[string]bool{}
	for _, u := range file.URLs {
		seen[redact.URL(u.URL)] = true
	}
	for _, u := range match.URLs {
		key := redact.URL(u.URL)
		if seen[key] || !transport.Fetchable(u.URL) {
			continue
		}
		seen[key] = true
		file.URLs = append(file.URLs, u)
	}
	if file.Signature == nil && match.Signature != nil {
		s := *match.Signature
		file.Signature = &s
	}
	if len(file.MetaURLs) == 0 {
		file.MetaURLs = append(file.MetaURLs, match.MetaURLs...)
	}
	if file.Publisher == (metalink.Party{}) {
		file.Publisher = match.Publisher
	}
	if file.License == (metalink.Party{}) {
		file.License = match.License
	}
	if file.Description == "" {
		file.Description = match.Description
	}
	if file.Version == "" {
		file.Version = match.Version
	}
}

// isSignatureLink reports whether a describedby Link names a detached
// OpenPGP signature of the file (RFC 6249 §5).
func isSignatureLink(l metalink.Link) bool {
	return l.Rel == "describedby" && signature.IsOpenPGP(l.Type)
}

// fetchSignature fetches the signature a describedby Link names and keeps
// it, armored, as the file's signature, which the engine checks over the
// finished file. Failures are warnings: the file still downloads, its
// signature unchecked (and `get --require-signature` refuses it).
func fetchSignature(ctx context.Context, doc *metalink.Document, file *metalink.File, base *url.URL, l metalink.Link, opts Options) {
	warn := func(format string, args ...any) {
		doc.Warnings = append(doc.Warnings, fmt.Sprintf("signature %s: ", l.URL)+fmt.Sprintf(format, args...))
	}
	if file.Signature != nil {
		return
	}
	abs, err := httpLink(base, l)
	if err != nil {
		warn("%v", err)
		return
	}
	body, err := signature.Fetch(ctx, abs, signature.MaxSize, opts.HTTPClient)
	if err != nil {
		warn("%v", err)
		return
	}
	armored, err := signature.Armor(body)
	if err != nil {
		warn("not an OpenPGP signature: %v", err)
		return
	}
	file.Signature = &metalink.Signature{MediaType: signature.MediaType, Value: armored}
}

// httpLink is the absolute URL of a describedby Link, resolved against
// the origin's final URL; only HTTP(S) targets are fetched.
func httpLink(base *url.URL, l metalink.Link) (string, error) {
	ref, err := url.Parse(l.URL)
	if err != nil {
		return "", fmt.Errorf("unreadable URL: %w", err)
	}
	abs := base.ResolveReference(ref)
	if s := strings.ToLower(abs.Scheme); s != "http" && s != "https" {
		return "", errors.New("not fetched: only HTTP(S) links are")
	}
	return abs.String(), nil
}
