package signature

import (
	"context"
	"fmt"
	"io"
	"strings"

	"braid/engine/metalink"
)

// IsOpenPGP reports whether a document's signature media type is a
// detached OpenPGP signature (Metalink 3's "pgp" is read as MediaType).
func IsOpenPGP(mediaType string) bool {
	mt := strings.ToLower(strings.TrimSpace(mediaType))
	if i := strings.IndexByte(mt, ';'); i >= 0 {
		mt = strings.TrimSpace(mt[:i])
	}
	return mt == MediaType || mt == "pgp"
}

// Check verifies the signature a document gives for a file (nil: none)
// over signed. A file without a signature is Unchecked; one whose
// signature has no media type or one other than OpenPGP's is Unreadable
// (RFC 5854 §4.2.13.1: the media type is required, and Braid checks only
// OpenPGP). In both cases signed is not read.
func (k *Keyring) Check(sig *metalink.Signature, signed io.Reader) (Outcome, error) {
	switch {
	case sig == nil:
		return Outcome{}, nil
	case strings.TrimSpace(sig.MediaType) == "":
		return unreadable("the document gives it no media type"), nil
	case !IsOpenPGP(sig.MediaType):
		return unreadable(fmt.Sprintf("its media type %q is not one Braid can check (only %s)", sig.MediaType, MediaType)), nil
	}
	return k.Verify(signed, []byte(sig.Value))
}

// CheckFunc is an engine Request.Check for a file whose document gives
// sig (nil: none): it checks sig over the file's bytes, hands the outcome
// to record (which may be nil; its error fails the check), and fails on a
// bad signature, and with require also unless a known key signed. An
// unreadable or unsupported signature without require does not fail: it
// is recorded (a warning to show) and the file is judged by its hashes.
// One implementation for `braid get`, the queue's runner and the window.
func (k *Keyring) CheckFunc(sig *metalink.Signature, require bool, record func(Outcome) error) func(context.Context, io.Reader) error {
	return func(ctx context.Context, r io.Reader) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		o, err := k.Check(sig, r)
		if err != nil {
			return fmt.Errorf("check the signature: %w", err)
		}
		if record != nil {
			if err := record(o); err != nil {
				return err
			}
		}
		return o.Err(require)
	}
}
