// Package signature checks detached OpenPGP signatures (RFC 4880) over
// downloaded files against the user's keyring, a file in Braid's state
// folder. A metalink carries such a signature in RFC 5854's
// <signature mediatype="application/pgp-signature">, Metalink 3's
// <signature type="pgp">, or Metalink/HTTP's Link rel=describedby
// type="application/pgp-signature" (RFC 6249).
//
// The outcome has four kinds: good (a key of the keyring signed these
// bytes), unknown key (a well-formed signature by a key the user has not
// imported; the bytes cannot be told from a forgery, so it proves nothing
// either way), unreadable (what the document gives as a signature is not
// one Braid can check: junk, a media type other than OpenPGP's, or none;
// it proves nothing either way, and the file is judged by its hashes),
// and bad (a readable signature that does not match the bytes). Only bad
// is a failure by itself; a caller that requires a signature treats
// anything but good as one (Outcome.Err).
package signature

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/ProtonMail/go-crypto/openpgp"
	"github.com/ProtonMail/go-crypto/openpgp/armor"
	pgperrors "github.com/ProtonMail/go-crypto/openpgp/errors"
	"github.com/ProtonMail/go-crypto/openpgp/packet"
)

// MediaType is the media type of a detached OpenPGP signature (RFC 3156),
// as RFC 5854 and RFC 6249 name it.
const MediaType = "application/pgp-signature"

// MaxSize bounds a signature read from a document or fetched from a URL:
// a detached signature is a few hundred bytes; this is generous.
const MaxSize = 64 << 10

// Errors a check fails with, wrapped with the details; test with errors.Is.
var (
	// ErrBad: a readable signature does not match the file's bytes. The
	// file must not be trusted.
	ErrBad = errors.New("bad OpenPGP signature")
	// ErrUnreadable: the document's signature cannot be checked (not
	// OpenPGP, no media type, or not a signature at all). Returned only
	// where a good signature is required; otherwise the file is judged by
	// its hashes and the outcome is a warning.
	ErrUnreadable = errors.New("the published signature cannot be checked")
	// ErrUnknownKey: the signature is by a key that is not in the keyring.
	// Returned only where a good signature is required.
	ErrUnknownKey = errors.New("signed by a key that is not in the keyring")
	// ErrUnsigned: the document gives no signature. Returned only where a
	// good signature is required.
	ErrUnsigned = errors.New("no OpenPGP signature published")
)

// Status is the kind of an Outcome.
type Status int

const (
	// Unchecked: no signature was checked (none published, or the file did
	// not get that far). The zero value.
	Unchecked Status = iota
	// Good: a key of the keyring signed exactly these bytes.
	Good
	// UnknownKey: a well-formed signature by a key not in the keyring.
	UnknownKey
	// Bad: a readable signature that does not match the bytes.
	Bad
	// Unreadable: the document gives a signature Braid cannot check
	// (junk, an unsupported media type, none at all); Note says which.
	// A warning, not a failure, unless a signature is required. (Last, so
	// the numbers of the others stay as they were stored.)
	Unreadable
)

// String is the status's stable name, used in --json and the queue.
func (s Status) String() string {
	switch s {
	case Unchecked:
		return "unchecked"
	case Good:
		return "good"
	case UnknownKey:
		return "unknown-key"
	case Bad:
		return "bad"
	case Unreadable:
		return "unreadable"
	}
	return fmt.Sprintf("Status(%d)", int(s))
}

// ParseStatus is the inverse of Status.String; unknown names are Unchecked.
func ParseStatus(s string) Status {
	for _, st := range []Status{Good, UnknownKey, Bad, Unreadable} {
		if st.String() == s {
			return st
		}
	}
	return Unchecked
}

// Outcome is what checking one file's signature found.
type Outcome struct {
	Status Status
	// Fingerprint is the signing key's fingerprint in upper-case hex, or
	// its 16-digit key ID when the signature names no fingerprint and the
	// key is unknown; "" when unchecked or unreadable.
	Fingerprint string
	// Signer is the key's primary user ID ("Name <email>"); set for Good.
	Signer string
	// Note is a caveat on a good signature (the key has expired since),
	// or why a signature is bad or unreadable.
	Note string
}

// String says the outcome in a user's words: "signed by NAME <email>
// (FPR)", "signed by an unknown key FPR", "BAD signature: why",
// "signature not checked: why; judged by its hashes".
func (o Outcome) String() string {
	switch o.Status {
	case Good:
		s := fmt.Sprintf("signed by %s (%s)", o.Signer, o.Fingerprint)
		if o.Note != "" {
			s += "; " + o.Note
		}
		return s
	case UnknownKey:
		return "signed by an unknown key " + o.Fingerprint
	case Bad:
		if o.Note == "" {
			return "BAD signature"
		}
		return "BAD signature: " + o.Note
	case Unreadable:
		if o.Note == "" {
			return "signature not checked: it cannot be read; judged by its hashes"
		}
		return "signature not checked: " + o.Note + "; judged by its hashes"
	}
	return "signature not checked"
}

// Advice is what the user can do about the outcome, or "": for an unknown
// key, how to import it.
func (o Outcome) Advice() string {
	if o.Status == UnknownKey {
		return fmt.Sprintf("if you trust key %s, import it with: braid keys import KEYFILE|URL (the publisher's key)", o.Fingerprint)
	}
	return ""
}

// Err is the error a check with this outcome fails with: ErrBad for a bad
// signature; with require, ErrUnknownKey, ErrUnreadable and ErrUnsigned
// too. nil when the file may be kept at its final name: an Unreadable
// outcome without require is a warning to show, not a failure.
func (o Outcome) Err(require bool) error {
	switch {
	case o.Status == Bad:
		return fmt.Errorf("%w: %s", ErrBad, o.Note)
	case o.Status == Good || !require:
		return nil
	case o.Status == UnknownKey:
		return fmt.Errorf("%w: %s (%s)", ErrUnknownKey, o.Fingerprint, o.Advice())
	case o.Status == Unreadable:
		return fmt.Errorf("%w: %s", ErrUnreadable, o.Note)
	}
	return ErrUnsigned
}

// Warning reports whether the outcome is a warning to show with a file
// that is otherwise kept: an Unreadable signature.
func (o Outcome) Warning() bool { return o.Status == Unreadable }

// Decode turns a signature as published into OpenPGP packets: ASCII
// armor ("-----BEGIN PGP SIGNATURE-----"), the base64 body of one without
// its armor lines (some metalinks carry that), or binary packets.
func Decode(value []byte) ([]byte, error) {
	if len(value) > MaxSize {
		return nil, fmt.Errorf("signature of %d bytes; more than %d is not a detached signature", len(value), MaxSize)
	}
	trimmed := bytes.TrimSpace(value)
	if len(trimmed) == 0 {
		return nil, errors.New("empty signature")
	}
	if bytes.Contains(trimmed, []byte("-----BEGIN PGP")) {
		block, err := armor.Decode(bytes.NewReader(trimmed))
		if err != nil {
			return nil, fmt.Errorf("armor: %w", err)
		}
		if block.Type != openpgp.SignatureType {
			return nil, fmt.Errorf("armor holds a %q, not a %q", block.Type, openpgp.SignatureType)
		}
		return io.ReadAll(io.LimitReader(block.Body, MaxSize))
	}
	if trimmed[0]&0x80 != 0 {
		return value, nil // an OpenPGP packet tag has its high bit set
	}
	lines := strings.Fields(string(trimmed))
	if last := lines[len(lines)-1]; len(lines) > 1 && len(last) == 5 && last[0] == '=' {
		lines = lines[:len(lines)-1] // the armor's CRC-24 line, kept without its armor
	}
	compact := strings.Join(lines, "")
	if bin, err := base64.StdEncoding.DecodeString(compact); err == nil && len(bin) > 0 && bin[0]&0x80 != 0 {
		return bin, nil
	}
	return nil, errors.New("neither an armored, a base64 nor a binary OpenPGP signature")
}

// Armor is the ASCII-armored form of a signature, the text a metalink
// carries; it accepts whatever Decode does.
func Armor(value []byte) (string, error) {
	bin, err := Decode(value)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	w, err := armor.Encode(&b, openpgp.SignatureType, nil)
	if err != nil {
		return "", err
	}
	if _, err := w.Write(bin); err != nil {
		return "", err
	}
	if err := w.Close(); err != nil {
		return "", err
	}
	b.WriteByte('\n')
	return b.String(), nil
}

// issuer names the key that made the first signature packet of sig.
func issuer(sig []byte) (string, error) {
	p, err := packet.NewReader(bytes.NewReader(sig)).Next()
	if err != nil {
		return "", err
	}
	s, ok := p.(*packet.Signature)
	if !ok {
		return "", errors.New("not a signature packet")
	}
	switch {
	case len(s.IssuerFingerprint) > 0:
		return fmt.Sprintf("%X", s.IssuerFingerprint), nil
	case s.IssuerKeyId != nil:
		return fmt.Sprintf("%016X", *s.IssuerKeyId), nil
	}
	return "", errors.New("the signature names no key")
}

// readErr remembers the first error reading the signed file, so that a
// file that cannot be read is not taken for one that does not match.
type readErr struct {
	r   io.Reader
	err error
}

func (r *readErr) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	if err != nil && err != io.EOF && r.err == nil {
		r.err = err
	}
	return n, err
}

// verify checks sig (as Decode takes it) over signed with the keys of kr.
// It fails only when signed cannot be read.
func verify(kr openpgp.EntityList, signed io.Reader, sig []byte) (Outcome, error) {
	bin, err := Decode(sig)
	if err != nil {
		return unreadable("it is not an OpenPGP signature (" + err.Error() + ")"), nil
	}
	who, err := issuer(bin)
	if err != nil {
		return unreadable("it is not an OpenPGP signature (" + err.Error() + ")"), nil
	}
	rd := &readErr{r: signed}
	signer, err := openpgp.CheckDetachedSignature(kr, rd, bytes.NewReader(bin), nil)
	if rd.err != nil {
		return Outcome{}, fmt.Errorf("read the signed file: %w", rd.err)
	}
	note := ""
	switch {
	case errors.Is(err, pgperrors.ErrUnknownIssuer):
		return Outcome{Status: UnknownKey, Fingerprint: who}, nil
	case isUnsupported(err):
		o := unreadable(fmt.Sprintf("Braid cannot check this kind of OpenPGP signature (%v)", err))
		o.Fingerprint = who
		return o, nil
	case errors.Is(err, pgperrors.ErrKeyExpired), errors.Is(err, pgperrors.ErrSignatureExpired):
		// The bytes match; only a date passed. gpg says "Good signature"
		// with a warning, and so does Braid.
		note = "note: " + err.Error()
	case err != nil:
		return Outcome{Status: Bad, Fingerprint: who, Note: fmt.Sprintf("the file's bytes do not match the signature by key %s (%v)", who, err)}, nil
	}
	if signer == nil {
		return Outcome{Status: Bad, Fingerprint: who, Note: "no key vouches for the signature"}, nil
	}
	k := keyOf(signer)
	return Outcome{Status: Good, Fingerprint: k.Fingerprint, Signer: k.UserID, Note: note}, nil
}

// unreadable is the outcome of a signature that cannot be checked.
func unreadable(why string) Outcome { return Outcome{Status: Unreadable, Note: why} }

// isUnsupported reports a signature the OpenPGP library cannot check at
// all (an algorithm or packet version it does not know, a malformed
// packet), as against one it checked and found not matching.
func isUnsupported(err error) bool {
	var unsupported pgperrors.UnsupportedError
	var structural pgperrors.StructuralError
	return errors.As(err, &unsupported) || errors.As(err, &structural)
}

// MarshalText stores a Status by its name (JSON, the queue).
func (s Status) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText reads a Status's name; an unknown name is Unchecked.
func (s *Status) UnmarshalText(b []byte) error {
	*s = ParseStatus(string(b))
	return nil
}
