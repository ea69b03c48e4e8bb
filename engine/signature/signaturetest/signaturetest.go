// Package signaturetest makes OpenPGP keys and detached signatures for
// tests, with go-crypto, in the test: no fixture key, no gpg needed.
package signaturetest

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"braid/engine/signature"

	"github.com/ProtonMail/go-crypto/openpgp"
	"github.com/ProtonMail/go-crypto/openpgp/armor"
	"github.com/ProtonMail/go-crypto/openpgp/packet"
)

// Signer is a fresh Ed25519 signing key.
type Signer struct {
	Entity *openpgp.Entity
}

// config makes small, fast keys: Ed25519 signs in microseconds even under
// the race detector, where RSA key generation takes seconds.
var config = &packet.Config{Algorithm: packet.PubKeyAlgoEdDSA}

// New makes a key for "name <email>".
func New(t testing.TB, name, email string) *Signer {
	t.Helper()
	e, err := openpgp.NewEntity(name, "", email, config)
	if err != nil {
		t.Fatalf("make key: %v", err)
	}
	return &Signer{Entity: e}
}

// Fingerprint is the key's fingerprint in upper-case hex.
func (s *Signer) Fingerprint() string { return fmt.Sprintf("%X", s.Entity.PrimaryKey.Fingerprint) }

// PublicBinary is the public key as binary packets (gpg --export).
func (s *Signer) PublicBinary(t testing.TB) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := s.Entity.Serialize(&b); err != nil {
		t.Fatalf("export key: %v", err)
	}
	return b.Bytes()
}

// PublicArmored is the public key armored (gpg --armor --export).
func (s *Signer) PublicArmored(t testing.TB) []byte {
	t.Helper()
	var b bytes.Buffer
	w, err := armor.Encode(&b, openpgp.PublicKeyType, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Entity.Serialize(w); err != nil {
		t.Fatalf("export key: %v", err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// KeyFile writes the public key, armored, to a file of the test's own and
// returns its path: for what imports a key from a file.
func (s *Signer) KeyFile(t testing.TB) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "key.asc")
	if err := os.WriteFile(p, s.PublicArmored(t), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// SignArmored is an armored detached signature of data (gpg --armor
// --detach-sign).
func (s *Signer) SignArmored(t testing.TB, data []byte) string {
	t.Helper()
	var b strings.Builder
	if err := openpgp.ArmoredDetachSign(&b, s.Entity, bytes.NewReader(data), config); err != nil {
		t.Fatalf("sign: %v", err)
	}
	return b.String()
}

// SignBinary is a binary detached signature of data (gpg --detach-sign).
func (s *Signer) SignBinary(t testing.TB, data []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := openpgp.DetachSign(&b, s.Entity, bytes.NewReader(data), config); err != nil {
		t.Fatalf("sign: %v", err)
	}
	return b.Bytes()
}

// Keyring is a keyring in a fresh state folder holding the public keys of
// signers.
func Keyring(t testing.TB, signers ...*Signer) *signature.Keyring {
	t.Helper()
	kr := signature.OpenKeyring(t.TempDir())
	for _, s := range signers {
		if _, err := kr.Import(bytes.NewReader(s.PublicBinary(t))); err != nil {
			t.Fatalf("import key: %v", err)
		}
	}
	return kr
}
