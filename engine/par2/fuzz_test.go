package par2

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// FuzzParse feeds damaged and made-up PAR2 files to the parser: it must
// return a set or an error, never panic, and a set it returns must be one
// Verify can walk.
func FuzzParse(f *testing.F) {
	dir := f.TempDir()
	path := writeRandom(f, dir, "seed", 5000, 21)
	paths, err := Create(context.Background(), path, CreateOptions{Blocks: 2, SliceSize: 1000})
	if err != nil {
		f.Fatal(err)
	}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
		f.Add(b[:len(b)/2])
	}
	f.Add([]byte("PAR2\x00PKT"))
	f.Add(encodePacket([16]byte{}, typeMain, []byte{4, 0, 0, 0, 0, 0, 0, 0, 9, 0, 0, 0}))
	data, err := os.ReadFile(filepath.Join(dir, "seed"))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := Parse([]io.ReaderAt{bytes.NewReader(b)}, []int64{int64(len(b))})
		if err != nil {
			if err.Error() == "" {
				t.Fatal("an error without a sentence")
			}
			return
		}
		for i, fl := range s.Files {
			if int64(len(fl.Slices)) != (fl.Size+s.SliceSize-1)/s.SliceSize {
				t.Fatalf("file %d: %d checksums for %d bytes", i, len(fl.Slices), fl.Size)
			}
			if fl.Size <= 1<<20 && s.SliceSize <= 1<<20 {
				if _, err := s.Verify(context.Background(), i, bytes.NewReader(data), int64(len(data))); err != nil {
					t.Fatal(err)
				}
			}
		}
	})
}
