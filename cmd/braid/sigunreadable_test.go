package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"braid/engine/mirrortest"
	"braid/engine/signature"
)

// TestGetUnreadableSignatureIsAWarning: a metalink whose <signature> is
// junk (aria2's own test documents carry "a signature" and an armor of
// ffff) or has no media type no longer fails a download whose sha-256
// matched: the file gets its final name, the user is told the signature
// could not be checked, and the queue records "unreadable". Only
// --require-signature makes it a failure, and then the file stays .part.
func TestGetUnreadableSignatureIsAWarning(t *testing.T) {
	t.Parallel()
	data := getData(150_000)
	m := mirrortest.New(t, data)
	sum := sha256.Sum256(data)
	tests := []struct {
		name      string
		mediaType string
		value     string
		require   bool
		code      int
		final     bool
		want      string
	}{
		{"junk", signature.MediaType, "a signature", false, 0, true, "signature not checked: it is not an OpenPGP signature"},
		{"no media type", "", "-----BEGIN PGP SIGNATURE-----\n\nffff\n-----END PGP SIGNATURE-----", false, 0, true, "signature not checked: the document gives it no media type"},
		{"junk, required", signature.MediaType, "a signature", true, 1, false, "the published signature cannot be checked"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			state, dir := t.TempDir(), t.TempDir()
			// Written by hand: metalink.Write refuses a signature without
			// a media type, as it should; documents in the wild have them.
			mt := ""
			if tc.mediaType != "" {
				mt = ` mediatype="` + tc.mediaType + `"`
			}
			doc := `<?xml version="1.0" encoding="UTF-8"?>` + "\n" +
				`<metalink xmlns="urn:ietf:params:xml:ns:metalink"><file name="image.iso">` +
				`<size>` + strconv.Itoa(len(data)) + `</size>` +
				`<hash type="sha-256">` + hex.EncodeToString(sum[:]) + `</hash>` +
				`<signature` + mt + `>` + tc.value + `</signature>` +
				`<url priority="1">` + m.URL() + `</url></file></metalink>`
			meta := filepath.Join(t.TempDir(), "image.meta4")
			if err := os.WriteFile(meta, []byte(doc), 0o644); err != nil {
				t.Fatal(err)
			}
			args := []string{"--state", state, "-d", dir, meta}
			if tc.require {
				args = append([]string{"--require-signature"}, args...)
			}
			code, out, errs := runIn(t, cmdGet, args...)
			if code != tc.code || !strings.Contains(out+errs, tc.want) {
				t.Fatalf("get: code %d, want %d; output lacks %q:\n%s\n%s", code, tc.code, tc.want, out, errs)
			}
			_, err := os.Stat(filepath.Join(dir, "image.iso"))
			if (err == nil) != tc.final {
				t.Fatalf("file at its final name: %v, want %v", err == nil, tc.final)
			}
			if !tc.final {
				if _, err := os.Stat(filepath.Join(dir, "image.iso.part")); err != nil {
					t.Fatalf("the .part is gone: %v", err)
				}
			}
			_, list, _ := runIn(t, cmdQueue, "--state", state, "list", "--json")
			var jobs []queueJob
			if err := json.Unmarshal([]byte(list), &jobs); err != nil || len(jobs) != 1 {
				t.Fatalf("queue list: %v %s", err, list)
			}
			if len(jobs[0].Signatures) != 1 || jobs[0].Signatures[0].Status != "unreadable" {
				t.Fatalf("queue records %+v, want one unreadable signature", jobs[0].Signatures)
			}
		})
	}
}
