package engine

import (
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"strings"
	"testing"

	"braid/engine/ftptest"
	"braid/engine/mirrortest"
	"braid/engine/resolve"
	"braid/internal/testkit"
)

// TestEarlyDrop: a mirror whose size, ETag or digest disagrees is dropped
// before it sends a byte of the file.
func TestEarlyDrop(t *testing.T) {
	t.Parallel()
	data := testkit.Data(1<<20 + 77)
	other := sha256.Sum256([]byte("another file"))
	tests := []struct {
		name   string
		opts   []mirrortest.Option
		pref   bool
		reason string
	}{
		{"wrong size", []mirrortest.Option{mirrortest.WrongSize(int64(len(data)) - 1000)}, false, "bytes"},
		{"ETag of a pref mirror", []mirrortest.Option{mirrortest.Header("ETag", `"stale"`)}, true, "ETag"},
		{"digest", []mirrortest.Option{mirrortest.Header("Digest", "SHA-256="+base64.StdEncoding.EncodeToString(other[:]))}, false, "digest"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			bad := mirrortest.New(t, data, append([]mirrortest.Option{addr(0)}, tc.opts...)...)
			good := mirrortest.New(t, data, addr(1), mirrortest.Header("ETag", `"v1"`))
			f := fileFor("f.bin", data, 64<<10, bad.URL(), good.URL())
			f.URLs[0].Pref = tc.pref
			f.URLs[1].Pref = tc.pref
			dir := t.TempDir()
			snap, err := get(t, &Client{}, &Request{Dir: dir, File: f, OriginETag: `"v1"`})
			if err != nil {
				t.Fatal(err)
			}
			wantFile(t, dir, "f.bin", data)
			ms := mirrorByURL(t, snap, bad.URL())
			if ms.State != MirrorDropped || !strings.Contains(ms.Reason, tc.reason) {
				t.Fatalf("mirror %s (%s); want dropped for its %s", ms.State, ms.Reason, tc.reason)
			}
			if n := bad.BytesServed(); n != 0 {
				t.Fatalf("disagreeing mirror sent %d bytes of the file", n)
			}
			if g := mirrorByURL(t, snap, good.URL()); g.State == MirrorDropped {
				t.Fatalf("good mirror dropped: %s", g.Reason)
			}
		})
	}
}

// TestUnknownSize: without a size in the metalink the mirrors tell it.
func TestUnknownSize(t *testing.T) {
	t.Parallel()
	data := testkit.Data(700<<10 + 3)
	m := mirrortest.New(t, data)
	f := fileFor("f.bin", data, 0, m.URL())
	f.Size = -1
	dir := t.TempDir()
	snap, err := get(t, &Client{}, &Request{Dir: dir, File: f})
	if err != nil {
		t.Fatal(err)
	}
	wantFile(t, dir, "f.bin", data)
	if snap.Size != int64(len(data)) {
		t.Fatalf("snapshot size %d, want %d", snap.Size, len(data))
	}
}

// TestFTPMixed: an FTP mirror works beside HTTP mirrors and does its share.
func TestFTPMixed(t *testing.T) {
	t.Parallel()
	data := testkit.Data(4<<20 + 5)
	srv := ftptest.New(t, ftptest.File("pub/f.bin", data))
	h := mirrortest.New(t, data, addr(0))
	f := fileFor("f.bin", data, 128<<10, h.URL(), srv.URL("pub/f.bin"))
	dir := t.TempDir()
	snap, err := get(t, &Client{}, &Request{Dir: dir, File: f})
	if err != nil {
		t.Fatal(err)
	}
	wantFile(t, dir, "f.bin", data)
	by := filledBy(snap)
	if by[srv.URL("pub/f.bin")] == 0 || by[h.URL()] == 0 {
		t.Fatalf("pieces by mirror %v: want both the FTP and the HTTP mirror used", by)
	}
	for _, m := range snap.Mirrors {
		if m.State == MirrorDropped || m.Strikes > 0 {
			t.Errorf("mirror %s blamed: %s, %d strikes, %q", m.URL, m.State, m.Strikes, m.Reason)
		}
	}
}

// TestMetalinkHTTP: a plain URL whose server sends Link: rel=duplicate and
// Digest (RFC 6249) becomes a verified download from all the mirrors.
func TestMetalinkHTTP(t *testing.T) {
	t.Parallel()
	data := testkit.Data(3<<20 + 9)
	sum := sha256.Sum256(data)
	digest := "SHA-256=" + base64.StdEncoding.EncodeToString(sum[:])
	tests := []struct {
		name    string
		digest  string
		wantErr error
	}{
		{"digest matches", digest, nil},
		{"digest of another file", "SHA-256=" + base64.StdEncoding.EncodeToString(make([]byte, 32)), ErrHashMismatch},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dup := mirrortest.New(t, data, addr(1), mirrortest.Rate(4<<20), mirrortest.Header("ETag", `"e1"`))
			origin := mirrortest.New(t, data, addr(0), mirrortest.Rate(4<<20), mirrortest.Header("ETag", `"e1"`),
				mirrortest.Header("Digest", tc.digest),
				mirrortest.Header("Link", "<"+dup.URL()+">; rel=duplicate; pri=1; pref"))
			res, err := resolve.Resolve(t.Context(), origin.URL(), resolve.Options{})
			if err != nil {
				t.Fatal(err)
			}
			f := res.Document.Files[0]
			if len(f.URLs) != 2 {
				t.Fatalf("resolved mirrors %v, want the origin and its duplicate", f.URLs)
			}
			dir := t.TempDir()
			snap, err := get(t, &Client{}, &Request{Dir: dir, File: f, OriginETag: res.Origin.ETag, Referer: res.Origin.URL})
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("err = %v, want %v", err, tc.wantErr)
			}
			if tc.wantErr != nil {
				noFile(t, dir, f.Name)
				return
			}
			wantFile(t, dir, f.Name, data)
			if by := filledBy(snap); by[dup.URL()] == 0 || by[origin.URL()] == 0 {
				t.Fatalf("pieces by mirror %v: want both origin and duplicate", by)
			}
		})
	}
}
