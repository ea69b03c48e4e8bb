package signature

import (
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
// over signed. A file without an OpenPGP signature is Unchecked, and
// signed is not read.
func (k *Keyring) Check(sig *metalink.Signature, signed io.Reader) (Outcome, error) {
	if sig == nil || !IsOpenPGP(sig.MediaType) {
		return Outcome{}, nil
	}
	return k.Verify(signed, []byte(sig.Value))
}
