package signature_test

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"braid/engine/metalink"
	"braid/engine/signature"
	"braid/engine/signature/signaturetest"
)

var data = bytes.Repeat([]byte("braid signs nothing; publishers do.\n"), 1000)

func TestVerifyOutcomes(t *testing.T) {
	alice := signaturetest.New(t, "Alice Publisher", "alice@example.org")
	mallory := signaturetest.New(t, "Mallory", "mallory@example.org")
	kr := signaturetest.Keyring(t, alice)
	tampered := append([]byte(nil), data...)
	tampered[1234] ^= 1
	tests := []struct {
		name   string
		signed []byte
		sig    []byte
		want   signature.Status
		text   string
	}{
		{"good armored", data, []byte(alice.SignArmored(t, data)), signature.Good,
			"signed by Alice Publisher <alice@example.org> (" + alice.Fingerprint() + ")"},
		{"good binary", data, alice.SignBinary(t, data), signature.Good, "signed by Alice Publisher"},
		{"good base64 body", data, armorBody(t, alice.SignArmored(t, data), false), signature.Good, "signed by Alice"},
		{"good base64 body and CRC", data, armorBody(t, alice.SignArmored(t, data), true), signature.Good, "signed by Alice"},
		{"unknown key", data, []byte(mallory.SignArmored(t, data)), signature.UnknownKey,
			"signed by an unknown key " + mallory.Fingerprint()},
		{"bad: bytes changed", tampered, []byte(alice.SignArmored(t, data)), signature.Bad, "BAD signature"},
		{"unreadable: not a signature", data, []byte("hello"), signature.Unreadable, "signature not checked: it is not an OpenPGP signature"},
		{"unreadable: a key, not a signature", data, alice.PublicArmored(t), signature.Unreadable, "judged by its hashes"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o, err := kr.Verify(bytes.NewReader(tc.signed), tc.sig)
			if err != nil {
				t.Fatal(err)
			}
			if o.Status != tc.want || !strings.Contains(o.String(), tc.text) {
				t.Fatalf("got %v %q, want %v containing %q", o.Status, o, tc.want, tc.text)
			}
			wantErr := tc.want == signature.Bad
			if err := o.Err(false); (err != nil) != wantErr || (wantErr && !errors.Is(err, signature.ErrBad)) {
				t.Fatalf("Err(false) = %v", err)
			}
			if o.Warning() != (tc.want == signature.Unreadable) {
				t.Fatalf("Warning() = %v for %v", o.Warning(), o.Status)
			}
			if tc.want == signature.Unreadable && !errors.Is(o.Err(true), signature.ErrUnreadable) {
				t.Fatalf("Err(true) = %v, want ErrUnreadable", o.Err(true))
			}
			if err := o.Err(true); (err == nil) != (tc.want == signature.Good) {
				t.Fatalf("Err(true) = %v", err)
			}
		})
	}
}

// armorBody is the base64 lines of an armored signature without its
// armor lines (and its checksum line unless crc), as some metalinks carry
// it.
func armorBody(t *testing.T, armored string, crc bool) []byte {
	var body []string
	in := false
	for _, l := range strings.Split(armored, "\n") {
		switch {
		case strings.HasPrefix(l, "-----BEGIN"):
			in = true
		case strings.HasPrefix(l, "="):
			if crc {
				body = append(body, l)
			}
			in = false
		case strings.HasPrefix(l, "-----END"):
			in = false
		case in && l != "" && !strings.Contains(l, ":"):
			body = append(body, l)
		}
	}
	if len(body) == 0 {
		t.Fatalf("no body in %q", armored)
	}
	return []byte(strings.Join(body, "\n"))
}

func TestKeyringImportListRemove(t *testing.T) {
	dir := t.TempDir()
	alice := signaturetest.New(t, "Alice", "alice@example.org")
	bob := signaturetest.New(t, "Bob", "bob@example.org")
	kr := signature.OpenKeyring(dir)
	if keys, err := kr.Keys(); err != nil || len(keys) != 0 {
		t.Fatalf("empty keyring: %v %v", keys, err)
	}
	if _, err := kr.Import(bytes.NewReader(alice.PublicArmored(t))); err != nil {
		t.Fatal(err)
	}
	if _, err := kr.Import(bytes.NewReader(bob.PublicBinary(t))); err != nil {
		t.Fatal(err)
	}
	// Importing again replaces, not duplicates.
	if _, err := kr.Import(bytes.NewReader(alice.PublicBinary(t))); err != nil {
		t.Fatal(err)
	}
	keys, err := signature.OpenKeyring(dir).Keys() // as another process sees it
	if err != nil {
		t.Fatal(err)
	}
	if len(keys) != 2 || keys[0].Fingerprint != alice.Fingerprint() || keys[1].Email != "bob@example.org" {
		t.Fatalf("keys = %+v", keys)
	}
	if _, err := kr.Import(strings.NewReader("not a key")); err == nil {
		t.Fatal("garbage imported")
	}
	if _, err := kr.Remove("0000000000000000"); !errors.Is(err, signature.ErrNoKey) {
		t.Fatalf("remove unknown: %v", err)
	}
	lower := strings.ToLower(bob.Fingerprint())
	if k, err := kr.Remove(lower[:8] + " " + lower[8:]); err != nil || k.Name != "Bob" {
		t.Fatalf("remove bob: %v %v", k, err)
	}
	o, err := kr.Verify(bytes.NewReader(data), bob.SignBinary(t, data))
	if err != nil || o.Status != signature.UnknownKey {
		t.Fatalf("after removing bob his signature is %v %v", o, err)
	}
	if fi, err := os.Stat(filepath.Join(dir, signature.KeyringName)); err != nil || fi.Size() == 0 {
		t.Fatalf("keyring file: %v", err)
	}
}

func TestImportFromURL(t *testing.T) {
	alice := signaturetest.New(t, "Alice", "alice@example.org")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write(alice.PublicArmored(t))
	}))
	defer srv.Close()
	kr := signature.OpenKeyring(t.TempDir())
	keys, err := kr.ImportFrom(context.Background(), srv.URL+"/KEY.asc", srv.Client())
	if err != nil || len(keys) != 1 || keys[0].Fingerprint != alice.Fingerprint() {
		t.Fatalf("%v %v", keys, err)
	}
	if _, err := kr.ImportFrom(context.Background(), filepath.Join(t.TempDir(), "none"), nil); err == nil {
		t.Fatal("a missing file imported")
	}
}

func TestCheckDocumentSignature(t *testing.T) {
	alice := signaturetest.New(t, "Alice", "alice@example.org")
	kr := signaturetest.Keyring(t, alice)
	o, err := kr.Check(nil, bytes.NewReader(data))
	if err != nil || o.Status != signature.Unchecked || !errors.Is(o.Err(true), signature.ErrUnsigned) {
		t.Fatalf("unsigned: %v %v", o, err)
	}
	sig := &metalink.Signature{MediaType: "application/pgp-signature", Value: alice.SignArmored(t, data)}
	if o, err := kr.Check(sig, bytes.NewReader(data)); err != nil || o.Status != signature.Good {
		t.Fatalf("signed: %v %v", o, err)
	}
	armored, err := signature.Armor(alice.SignBinary(t, data))
	if err != nil || !strings.HasPrefix(armored, "-----BEGIN PGP SIGNATURE-----") {
		t.Fatalf("armor: %q %v", armored, err)
	}
	if o, _ := kr.Check(&metalink.Signature{MediaType: "pgp", Value: armored}, bytes.NewReader(data)); o.Status != signature.Good {
		t.Fatalf("Metalink 3 pgp: %v", o)
	}
}

func TestUnreadableSignedFileIsAnError(t *testing.T) {
	alice := signaturetest.New(t, "Alice", "alice@example.org")
	kr := signaturetest.Keyring(t, alice)
	f, err := os.Open(t.TempDir()) // a folder: reads fail
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if o, err := kr.Verify(f, alice.SignBinary(t, data)); err == nil {
		t.Fatalf("reading a folder gave %v and no error", o)
	}
}

// TestCheckUnreadableIsAWarning: what a document gives as a signature but
// Braid cannot check (junk, no media type, a media type other than
// OpenPGP's) does not fail a file whose hashes matched; only a required
// signature makes it a failure, and then with ErrUnreadable, not ErrBad.
// A readable signature that does not match stays ErrBad either way.
func TestCheckUnreadableIsAWarning(t *testing.T) {
	alice := signaturetest.New(t, "Alice", "alice@example.org")
	kr := signaturetest.Keyring(t, alice)
	forged := append([]byte(nil), data...)
	forged[7] ^= 1
	tests := []struct {
		name string
		sig  *metalink.Signature
		want signature.Status
		note string
	}{
		{"junk", &metalink.Signature{MediaType: signature.MediaType, Value: "a signature"}, signature.Unreadable, "not an OpenPGP signature"},
		{"no media type", &metalink.Signature{Value: alice.SignArmored(t, data)}, signature.Unreadable, "no media type"},
		{"S/MIME", &metalink.Signature{MediaType: "application/pkcs7-signature", Value: "MIIB"}, signature.Unreadable, "application/pkcs7-signature"},
		{"bad", &metalink.Signature{MediaType: signature.MediaType, Value: alice.SignArmored(t, forged)}, signature.Bad, "do not match"},
		{"good", &metalink.Signature{MediaType: signature.MediaType, Value: alice.SignArmored(t, data)}, signature.Good, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var recorded signature.Outcome
			record := func(o signature.Outcome) error { recorded = o; return nil }
			errLoose := kr.CheckFunc(tc.sig, false, record)(context.Background(), bytes.NewReader(data))
			if recorded.Status != tc.want || !strings.Contains(recorded.Note, tc.note) {
				t.Fatalf("recorded %v %q, want %v with %q", recorded.Status, recorded.Note, tc.want, tc.note)
			}
			errStrict := kr.CheckFunc(tc.sig, true, nil)(context.Background(), bytes.NewReader(data))
			switch tc.want {
			case signature.Unreadable:
				if errLoose != nil {
					t.Errorf("without --require-signature: %v; want the file kept, judged by its hashes", errLoose)
				}
				if !errors.Is(errStrict, signature.ErrUnreadable) || errors.Is(errStrict, signature.ErrBad) {
					t.Errorf("with --require-signature: %v; want ErrUnreadable", errStrict)
				}
				if got := recorded.String(); !strings.HasPrefix(got, "signature not checked: ") || !strings.HasSuffix(got, "judged by its hashes") {
					t.Errorf("says %q", got)
				}
				if signature.ParseStatus(recorded.Status.String()) != signature.Unreadable {
					t.Errorf("status %q does not read back", recorded.Status)
				}
			case signature.Bad:
				if !errors.Is(errLoose, signature.ErrBad) || !errors.Is(errStrict, signature.ErrBad) {
					t.Errorf("bad signature: %v, %v; want ErrBad both ways", errLoose, errStrict)
				}
			case signature.Good:
				if errLoose != nil || errStrict != nil {
					t.Errorf("good signature: %v, %v", errLoose, errStrict)
				}
			}
		})
	}
}
