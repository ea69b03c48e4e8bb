package stargz

import (
	"bytes"
	"context"
	"io"
	"os"
	"testing"

	"braid/engine/mirrortest"
	"braid/engine/stargz/stargztest"
	"braid/engine/transport"
	"braid/engine/ziprange/ziptest"
)

// memSource serves a byte slice as a transport.Source: the fuzzer's
// blobs are read without a server, thousands a second.
type memSource []byte

var _ transport.Source = memSource(nil)

func (m memSource) Mirror() string { return "memory" }

func (m memSource) ReadRange(_ context.Context, off, n int64) (io.ReadCloser, error) {
	if off < 0 || n < 0 || off > int64(len(m))-n {
		return nil, transport.ErrMismatch
	}
	return io.NopCloser(bytes.NewReader(m[off : off+n])), nil
}

// FuzzOpen feeds damaged blobs to Open and Extract: never a panic, every
// chunk Open lists lies before the TOC and the chunks cover their file,
// and a member Extract writes has the bytes its digests give.
func FuzzOpen(f *testing.F) {
	f.Add(stargztest.Make(f, stargztest.Options{ChunkSize: 1000},
		stargztest.File{Name: "a.txt", Data: ziptest.Text(3000, 1)},
		stargztest.File{Name: "d/", Type: "dir"},
		stargztest.File{Name: "l", Type: "symlink", LinkName: "a.txt"},
		stargztest.File{Name: "h", Type: "hardlink", LinkName: "a.txt"},
		stargztest.File{Name: "e"},
	).Bytes)
	f.Add(stargztest.Make(f, stargztest.Options{Legacy: true}, stargztest.File{Name: "s", Data: []byte("small")}).Bytes)
	f.Add(stargztest.TarGz(f, stargztest.File{Name: "t", Data: mirrortest.Bytes(600, 2)}))
	f.Add(stargztest.Footer(f, 0, false))
	if real, err := os.ReadFile(realBlob); err == nil {
		f.Add(real)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		b, err := Open(context.Background(), memSource(data), int64(len(data)))
		if err != nil {
			return
		}
		dir := t.TempDir()
		for i, e := range b.Entries {
			var at int64
			for _, c := range e.Chunks {
				if c.Offset < 0 || c.End > b.TOCOffset || c.End <= c.Offset || c.FileOffset != at || c.Size <= 0 {
					t.Fatalf("%s: chunk %+v after %d bytes, TOC at %d", e.Name, c, at, b.TOCOffset)
				}
				at += c.Size
			}
			if len(e.Chunks) > 0 && at != e.Size {
				t.Fatalf("%s: chunks cover %d of %d bytes", e.Name, at, e.Size)
			}
			if e.Size > 1<<20 || i >= 8 {
				continue
			}
			got, err := b.Extract(context.Background(), e, dir)
			if err != nil || got.Existing {
				continue
			}
			src := e
			if e.Type == TypeHardlink {
				src = b.Entry(e.LinkName)
			}
			if !fileMatches(mustRoot(t, dir), got.Name, src.Digest) && src.Digest != "" {
				t.Fatalf("%s: written, but its bytes do not match %s", e.Name, src.Digest)
			}
		}
	})
}

// mustRoot opens dir as an os.Root, closed when the test ends.
func mustRoot(t *testing.T, dir string) *os.Root {
	t.Helper()
	r, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}
