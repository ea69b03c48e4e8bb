package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"braid/engine/metalink"
	"braid/engine/mirrortest"
	"braid/engine/signature"
	"braid/engine/signature/signaturetest"
)

// signedMeta4 writes a .meta4 for data served by m, carrying sig (none
// when "").
func signedMeta4(t *testing.T, dir string, data []byte, sig string, urls ...string) string {
	t.Helper()
	sum := sha256.Sum256(data)
	f := metalink.File{Name: "image.iso", Size: int64(len(data)),
		Hashes: []metalink.Hash{{Type: "sha-256", Value: hex.EncodeToString(sum[:])}}}
	if sig != "" {
		f.Signature = &metalink.Signature{MediaType: signature.MediaType, Value: sig}
	}
	for i, u := range urls {
		f.URLs = append(f.URLs, metalink.URL{URL: u, Priority: i + 1})
	}
	var b bytes.Buffer
	if err := metalink.Write(&b, &metalink.Document{Version: 4, Files: []metalink.File{f}}); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "image.meta4")
	if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func runIn(t *testing.T, cmd command, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := cmd(context.Background(), args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestGetChecksSignatures(t *testing.T) {
	t.Parallel()
	data := getData(200_000)
	m := mirrortest.New(t, data)
	alice := signaturetest.New(t, "Alice Publisher", "alice@example.org")
	mallory := signaturetest.New(t, "Mallory", "mallory@example.org")
	keyFile := filepath.Join(t.TempDir(), "alice.asc")
	if err := os.WriteFile(keyFile, alice.PublicArmored(t), 0o644); err != nil {
		t.Fatal(err)
	}
	forged := append([]byte(nil), data...)
	forged[100] ^= 1

	tests := []struct {
		name     string
		sig      string
		require  bool
		code     int
		final    bool   // the file is at its final name
		want     string // in stdout or stderr
		queueSig string // what queue list --json records
	}{
		{"good", alice.SignArmored(t, data), false, 0, true,
			"image.iso: signed by Alice Publisher <alice@example.org> (" + alice.Fingerprint() + ")", "good"},
		{"good, required", alice.SignArmored(t, data), true, 0, true, "signed by Alice Publisher", "good"},
		{"unknown key", mallory.SignArmored(t, data), false, 0, true,
			"signed by an unknown key " + mallory.Fingerprint(), "unknown-key"},
		{"unknown key, required", mallory.SignArmored(t, data), true, 1, false, "braid keys import", "unknown-key"},
		{"bad", alice.SignArmored(t, forged), false, 1, false, "bad OpenPGP signature", "bad"},
		{"unsigned, required", "", true, 1, false, "no OpenPGP signature published", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			state, dir := t.TempDir(), t.TempDir()
			if code, _, errs := runIn(t, cmdKeys, "--state", state, "import", keyFile); code != 0 {
				t.Fatalf("keys import: %d %s", code, errs)
			}
			meta := signedMeta4(t, t.TempDir(), data, tc.sig, m.URL())
			args := []string{"--state", state, "-d", dir, meta}
			if tc.require {
				args = append([]string{"--require-signature"}, args...)
			}
			code, out, errs := runIn(t, cmdGet, args...)
			if code != tc.code || !strings.Contains(out+errs, tc.want) {
				t.Fatalf("get: code %d, want %d, output lacks %q:\n%s\n%s", code, tc.code, tc.want, out, errs)
			}
			_, finalErr := os.Stat(filepath.Join(dir, "image.iso"))
			if (finalErr == nil) != tc.final {
				t.Fatalf("file at final name: %v, want %v", finalErr == nil, tc.final)
			}
			if !tc.final {
				if _, err := os.Stat(filepath.Join(dir, "image.iso.part")); err != nil {
					t.Fatalf("the .part is gone: %v", err)
				}
				if tc.queueSig == "bad" && !strings.Contains(errs, "image.iso.part kept") {
					t.Fatalf("the message does not say the file stays .part: %s", errs)
				}
			}
			_, list, _ := runIn(t, cmdQueue, "--state", state, "list", "--json")
			var jobs []queueJob
			if err := json.Unmarshal([]byte(list), &jobs); err != nil || len(jobs) != 1 {
				t.Fatalf("queue list: %v %s", err, list)
			}
			got := ""
			if len(jobs[0].Signatures) == 1 {
				got = jobs[0].Signatures[0].Status
			}
			if got != tc.queueSig {
				t.Fatalf("queue records %q, want %q (%s)", got, tc.queueSig, list)
			}
		})
	}
}

// After importing the key, the same get finishes the file kept as .part.
func TestGetRequireSignatureThenImport(t *testing.T) {
	t.Parallel()
	data := getData(150_000)
	m := mirrortest.New(t, data)
	alice := signaturetest.New(t, "Alice", "alice@example.org")
	state, dir := t.TempDir(), t.TempDir()
	meta := signedMeta4(t, t.TempDir(), data, alice.SignArmored(t, data), m.URL())
	if code, out, errs := runIn(t, cmdGet, "--require-signature", "--state", state, "-d", dir, meta); code != 1 {
		t.Fatalf("unknown key passed --require-signature: %s %s", out, errs)
	}
	keyFile := filepath.Join(t.TempDir(), "alice.gpg")
	if err := os.WriteFile(keyFile, alice.PublicBinary(t), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, _ := runIn(t, cmdKeys, "--state", state, "import", keyFile); code != 0 || !strings.Contains(out, alice.Fingerprint()) {
		t.Fatalf("import: %s", out)
	}
	served := m.BytesServed()
	code, out, errs := runIn(t, cmdGet, "--require-signature", "--json", "--state", state, "-d", dir, meta)
	if code != 0 || !strings.Contains(out, `"status":"good"`) {
		t.Fatalf("after import: %d %s %s", code, out, errs)
	}
	if m.BytesServed() != served {
		t.Fatalf("the verified .part was fetched again (%d more bytes)", m.BytesServed()-served)
	}
	if got, err := os.ReadFile(filepath.Join(dir, "image.iso")); err != nil || !bytes.Equal(got, data) {
		t.Fatalf("final file: %v", err)
	}
}

func TestKeysCommand(t *testing.T) {
	t.Parallel()
	state := t.TempDir()
	alice := signaturetest.New(t, "Alice", "alice@example.org")
	keyFile := filepath.Join(t.TempDir(), "alice.asc")
	if err := os.WriteFile(keyFile, alice.PublicArmored(t), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, _ := runIn(t, cmdKeys, "--state", state, "list"); code != 0 || !strings.Contains(out, "no keys") {
		t.Fatalf("empty list: %d %s", code, out)
	}
	if code, _, _ := runIn(t, cmdKeys, "--state", state, "import"); code != 2 {
		t.Fatalf("import without a file: %d", code)
	}
	if code, _, errs := runIn(t, cmdKeys, "--state", state, "import", filepath.Join(state, "none.asc")); code != 1 || errs == "" {
		t.Fatalf("import of a missing file: %d", code)
	}
	if code, _, _ := runIn(t, cmdKeys, "--state", state, "import", keyFile); code != 0 {
		t.Fatal("import failed")
	}
	code, out, _ := runIn(t, cmdKeys, "list", "--json", "--state", state)
	var keys []jsonKey
	if err := json.Unmarshal([]byte(out), &keys); code != 0 || err != nil || len(keys) != 1 || keys[0].Email != "alice@example.org" {
		t.Fatalf("list --json: %d %v %s", code, err, out)
	}
	if code, _, errs := runIn(t, cmdKeys, "--state", state, "remove", "DEADBEEFDEADBEEF"); code != 1 || !strings.Contains(errs, "no such key") {
		t.Fatalf("remove unknown: %d %s", code, errs)
	}
	if code, out, _ := runIn(t, cmdKeys, "--state", state, "remove", alice.Fingerprint()); code != 0 || !strings.Contains(out, "removed Alice") {
		t.Fatalf("remove: %d %s", code, out)
	}
}

func TestVerifyChecksSignatures(t *testing.T) {
	t.Parallel()
	data := getData(100_000)
	alice := signaturetest.New(t, "Alice", "alice@example.org")
	mallory := signaturetest.New(t, "Mallory", "mallory@example.org")
	state, dir := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "image.iso"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := signature.OpenKeyring(state).Import(bytes.NewReader(alice.PublicBinary(t))); err != nil {
		t.Fatal(err)
	}
	forged := append([]byte{}, data...)
	forged[0] ^= 1
	tests := []struct {
		name    string
		sig     string
		require bool
		code    int
		want    string
	}{
		{"good", alice.SignArmored(t, data), false, 0, "OK (100000 bytes"},
		{"unknown", mallory.SignArmored(t, data), false, 0, "signed by an unknown key " + mallory.Fingerprint()},
		{"unknown, required", mallory.SignArmored(t, data), true, 1, "image.iso: BAD"},
		{"bad", alice.SignArmored(t, forged), false, 1, "BAD signature"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			meta := signedMeta4(t, t.TempDir(), data, tc.sig, "http://127.0.0.1:9/image.iso")
			args := []string{"--state", state, "--metalink", meta, "-d", dir}
			if tc.require {
				args = append(args, "--require-signature")
			}
			code, out, errs := runIn(t, cmdVerify, args...)
			if code != tc.code || !strings.Contains(out, tc.want) {
				t.Fatalf("verify: %d, want %d; output lacks %q:\n%s%s", code, tc.code, tc.want, out, errs)
			}
			if strings.Contains(out, "braid repair") {
				t.Fatalf("a signature problem is not repaired by fetching pieces:\n%s", out)
			}
			_, js, _ := runIn(t, cmdVerify, append(args, "--json")...)
			var v verifyJSON
			if err := json.Unmarshal([]byte(js), &v); err != nil || len(v.Files) != 1 || v.Files[0].Signature == nil {
				t.Fatalf("--json: %v %s", err, js)
			}
		})
	}
}

// get of a plain URL whose server names a detached signature in its Link
// header (RFC 6249) fetches it and checks the file against it.
func TestGetSignatureFromLinkHeader(t *testing.T) {
	t.Parallel()
	data := getData(250_000)
	alice := signaturetest.New(t, "Alice Publisher", "alice@example.org")
	sigSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write(alice.SignBinary(t, data))
	}))
	defer sigSrv.Close()
	sum := sha256.Sum256(data)
	origin := mirrortest.New(t, data, mirrortest.Path("/image.iso"),
		mirrortest.Header("Digest", "SHA-256="+base64.StdEncoding.EncodeToString(sum[:])),
		mirrortest.Header("Link", "<"+sigSrv.URL+`/image.iso.sig>; rel=describedby; type="application/pgp-signature"`))
	state, dir := t.TempDir(), t.TempDir()
	if _, err := signature.OpenKeyring(state).Import(bytes.NewReader(alice.PublicArmored(t))); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runIn(t, cmdGet, "--require-signature", "--state", state, "-d", dir, origin.URL())
	if code != 0 || !strings.Contains(out, "image.iso: signed by Alice Publisher <alice@example.org> ("+alice.Fingerprint()+")") {
		t.Fatalf("get: %d\n%s\n%s", code, out, errs)
	}
}
