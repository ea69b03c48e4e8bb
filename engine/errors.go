package engine

import (
	"errors"
	"fmt"
	"strings"
)

// Errors a Download ends with, wrapped with the file's name and the details;
// test with errors.Is.
var (
	// ErrExists: a file is already at the final name and does not verify.
	// Braid never overwrites it; repair it or remove it.
	ErrExists = errors.New("a different file is already there")
	// ErrNoMirrors: every mirror was dropped (or none could be used) before
	// the file was complete.
	ErrNoMirrors = errors.New("no usable mirror left")
	// ErrHashMismatch: the finished file does not match its whole-file
	// hash, so it was not given its final name.
	ErrHashMismatch = errors.New("file does not match its hash")
	// ErrBadPiece: every mirror that could serve a piece sent data that
	// fails the piece's hash.
	ErrBadPiece = errors.New("no mirror sent a good copy of a piece")
	// ErrUnknownSize: neither the metalink nor any mirror tells the size.
	ErrUnknownSize = errors.New("file size unknown")
)

// MirrorError is why one mirror was dropped, kept for the final error.
type MirrorError struct {
	Mirror string // the mirror's URL without credentials
	Err    error
}

func (e *MirrorError) Error() string { return ofMirror(e.Mirror, e.Err.Error()) }

// ofMirror is text said of mirror: after the mirror's URL, unless it
// begins with it already (a transport error names its URL).
func ofMirror(mirror, text string) string {
	if strings.HasPrefix(text, mirror+": ") {
		return text
	}
	return mirror + ": " + text
}

func (e *MirrorError) Unwrap() error { return e.Err }

// noMirrorsError lists why each mirror was given up.
func noMirrorsError(reasons []*MirrorError) error {
	var b strings.Builder
	for i, r := range reasons {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(r.Error())
	}
	if b.Len() == 0 {
		return ErrNoMirrors
	}
	errs := []error{ErrNoMirrors}
	for _, r := range reasons {
		errs = append(errs, r)
	}
	return &noMirrors{text: fmt.Sprintf("%s (%s)", ErrNoMirrors, b.String()), errs: errs}
}

// noMirrors is ErrNoMirrors with each mirror's reason, all of which
// errors.Is and errors.As see (a transport.LoginError among them says a
// login is wanted).
type noMirrors struct {
	text string
	errs []error
}

func (e *noMirrors) Error() string   { return e.text }
func (e *noMirrors) Unwrap() []error { return e.errs }

// badPieceError is ErrBadPiece for piece i, which senders mirrors sent bad.
func badPieceError(i, senders int) error {
	mirrors := "mirrors"
	if senders == 1 {
		mirrors = "mirror"
	}
	return fmt.Errorf("piece %d: %w (%d %s sent bad data)", i, ErrBadPiece, senders, mirrors)
}
