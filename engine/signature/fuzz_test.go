package signature_test

import (
	"bytes"
	"testing"

	"braid/engine/signature/signaturetest"
)

// FuzzVerify feeds arbitrary signatures to a keyring with a key in it:
// whatever a metalink or a server sends, the outcome is an outcome, never
// a panic, and only a real signature by the key is good.
func FuzzVerify(f *testing.F) {
	alice := signaturetest.New(f, "Alice", "alice@example.org")
	kr := signaturetest.Keyring(f, alice)
	f.Add([]byte(alice.SignArmored(f, data)))
	f.Add(alice.SignBinary(f, data))
	f.Add(alice.PublicArmored(f))
	f.Add([]byte("-----BEGIN PGP SIGNATURE-----\n\nAAAA\n-----END PGP SIGNATURE-----\n"))
	f.Add([]byte{0x88, 0x00})
	f.Fuzz(func(t *testing.T, sig []byte) {
		o, err := kr.Verify(bytes.NewReader(data[:100]), sig)
		if err != nil {
			t.Fatalf("reading bytes in memory failed: %v", err)
		}
		_ = o.String()
	})
}
