package stargz

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"braid/engine/mirrortest"
)

// realBlob is a blob the reference writer made (containerd's
// stargz-snapshotter estargz v0.19.1, Build with 16 KiB chunks, a 4 KiB
// minimum chunk size, so that small files share a gzip member, and etc/c
// prioritized): etc/ (a folder), etc/c, the prefetch landmark, etc/a
// (empty), etc/b ("hello\n"), etc/d (70000 bytes), etc/e (500 bytes),
// etc/link -> b. The files' bytes are pattern(n, mul) as below.
const (
	realBlob          = "testdata/estargz-v0.19.1.tar.gz"
	realBlobTOCDigest = "sha256:4e6a121c620c92516c4dfd5701630ad67086913bc5998bf0c0ec19e8531182a1"
)

// pattern is the test files' bytes: i*mul mod 251.
func pattern(n, mul int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte((i * mul) % 251)
	}
	return b
}

// TestReferenceWriterBlob reads a blob the reference eStargz writer made:
// the TOC digest is the one the writer gave for its manifest annotation,
// and every file, small ones sharing a gzip member among them, comes out
// as it went in, each checked against the writer's digests.
func TestReferenceWriterBlob(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(realBlob)
	if err != nil {
		t.Fatal(err)
	}
	m := mirrortest.New(t, data, mirrortest.Path("/layer"))
	b, err := Open(context.Background(), source(t, m.URL()), -1)
	if err != nil {
		t.Fatal(err)
	}
	if b.TOCDigest != realBlobTOCDigest || b.Legacy {
		t.Errorf("TOC digest %s (legacy %v), the writer gave %s", b.TOCDigest, b.Legacy, realBlobTOCDigest)
	}
	shared := 0
	for _, e := range b.Entries {
		for _, c := range e.Chunks {
			if c.InnerOffset > 0 {
				shared++
			}
		}
	}
	if d := b.Entry("etc/d"); d == nil || len(d.Chunks) != 5 || shared == 0 {
		t.Errorf("etc/d: %+v; %d chunks in shared members", d, shared)
	}
	dir := t.TempDir()
	for name, want := range map[string][]byte{
		"etc/a": {}, "etc/b": []byte("hello\n"), "etc/c": pattern(3000, 1), "etc/d": pattern(70000, 7), "etc/e": pattern(500, 3),
	} {
		got, err := b.Extract(context.Background(), b.Entry(name), dir)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if have, err := os.ReadFile(filepath.Join(dir, got.Name)); err != nil || !bytes.Equal(have, want) {
			t.Errorf("%s differs from what the writer packed (%v)", name, err)
		}
	}
	if e := b.Entry("etc/link"); e == nil || e.Type != TypeSymlink || e.LinkName != "b" {
		t.Errorf("etc/link: %+v", e)
	}
}
