package resolve_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"braid/engine"
	"braid/engine/metalink"
	"braid/engine/mirrortest"
	"braid/engine/signature"
	"braid/engine/signature/signaturetest"
	"braid/internal/testkit"
)

// describing is a Metalink 4 document for data named name, with sha-256
// pieces of 64 KiB, listing urls as its mirrors.
func describing(t *testing.T, name string, data []byte, urls ...string) []byte {
	t.Helper()
	h, _ := sha256Of(data)
	f := metalink.File{Name: name, Size: int64(len(data)), Hashes: []metalink.Hash{h},
		Publisher: metalink.Party{Name: "Example Project"}, Version: "1.0",
		Pieces: &metalink.Pieces{Type: "sha-256", Length: 64 << 10}}
	for off := 0; off < len(data); off += 64 << 10 {
		ph, _ := sha256Of(data[off:min(off+64<<10, len(data))])
		f.Pieces.Hashes = append(f.Pieces.Hashes, ph.Value)
	}
	for i, u := range urls {
		f.URLs = append(f.URLs, metalink.URL{URL: u, Priority: i + 1})
	}
	var b bytes.Buffer
	if err := metalink.Write(&b, &metalink.Document{Version: 4, Files: []metalink.File{f}}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// A describedby metalink's mirrors join the download and carry bytes.
func TestDescribedByMirrorsCarryBytes(t *testing.T) {
	data := testkit.Data(1 << 20)
	_, digest := sha256Of(data)
	m1 := mirrortest.New(t, data, mirrortest.Addr("127.0.0.2"))
	m2 := mirrortest.New(t, data, mirrortest.Addr("127.0.0.3"))
	desc := mirrortest.New(t, describing(t, "f.bin", data, m1.URL(), m2.URL()), mirrortest.Path("/f.meta4"))
	// The origin is slow, so the file's bytes come from the mirrors
	// only the describing metalink names.
	origin := mirrortest.New(t, data, mirrortest.Path("/f.bin"), mirrortest.Rate(64<<10),
		mirrortest.Header("Digest", digest),
		mirrortest.Header("Link", fmt.Sprintf(`<%s>; rel=describedby; type="application/metalink4+xml"`, desc.URL())))
	r := resolveOK(t, origin.URL())
	f := r.Document.Files[0]
	if len(f.URLs) != 3 || f.URLs[0].URL != origin.URL() {
		t.Fatalf("URLs %+v: want the origin and the metalink's two mirrors", f.URLs)
	}
	if f.Publisher.Name != "Example Project" || f.Version != "1.0" {
		t.Fatalf("publisher %+v version %q not taken from the metalink", f.Publisher, f.Version)
	}
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	dl := (&engine.Client{}).Do(ctx, &engine.Request{Dir: dir, File: f})
	if err := dl.Err(); err != nil {
		t.Fatal(err)
	}
	for _, m := range dl.Snapshot().Mirrors {
		t.Logf("%s: %v %s, %d bytes", m.URL, m.State, m.Reason, m.Bytes)
	}
	got, err := os.ReadFile(filepath.Join(dir, "f.bin"))
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("file: %v", err)
	}
	if m1.BytesServed() == 0 || m2.BytesServed() == 0 {
		t.Fatalf("the metalink's mirrors served %d and %d bytes", m1.BytesServed(), m2.BytesServed())
	}
}

// A signature named by the origin's Link header is fetched and checked
// over the finished file.
func TestSignatureOnLinkHeader(t *testing.T) {
	data := testkit.Data(200_000)
	_, digest := sha256Of(data)
	alice := signaturetest.New(t, "Alice", "alice@example.org")
	kr := signaturetest.Keyring(t, alice)
	forged := append([]byte(nil), data...)
	forged[7] ^= 1
	for _, tc := range []struct {
		name string
		sig  []byte
		want signature.Status
	}{
		{"binary .sig", alice.SignBinary(t, data), signature.Good},
		{"armored .asc", []byte(alice.SignArmored(t, data)), signature.Good},
		{"bad", alice.SignBinary(t, forged), signature.Bad},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sigSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", signature.MediaType)
				w.Write(tc.sig)
			}))
			defer sigSrv.Close()
			origin := mirrortest.New(t, data, mirrortest.Path("/f.bin"), mirrortest.Header("Digest", digest),
				mirrortest.Header("Link", fmt.Sprintf(`<%s/f.bin.sig>; rel=describedby; type="application/pgp-signature"`, sigSrv.URL)))
			r := resolveOK(t, origin.URL())
			f := r.Document.Files[0]
			if f.Signature == nil || !strings.HasPrefix(f.Signature.Value, "-----BEGIN PGP SIGNATURE-----") {
				t.Fatalf("signature %+v, warnings %q", f.Signature, r.Document.Warnings)
			}
			var got signature.Outcome
			dir := t.TempDir()
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			err := (&engine.Client{}).Do(ctx, &engine.Request{Dir: dir, File: f,
				Check: kr.CheckFunc(f.Signature, false, func(o signature.Outcome) error { got = o; return nil })}).Err()
			if got.Status != tc.want {
				t.Fatalf("outcome %v, want %v (err %v)", got, tc.want, err)
			}
			if (err == nil) != (tc.want == signature.Good) {
				t.Fatalf("err %v", err)
			}
		})
	}
}
