package torrent

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"braid/engine/mirrortest"
	"braid/engine/torrent/torrenttest"

	"github.com/anacrolix/torrent/metainfo"
)

// pairOnDisk makes the torrent "pair" in a folder of the test's own: a.bin
// (100 KiB of seed's bytes) and b.bin (60 KiB of seed+1's), in 64 KiB
// pieces, so that piece 1 spans both files.
func pairOnDisk(t *testing.T, seed uint64) (dir string, a, b []byte, mi *metainfo.MetaInfo, info metainfo.Info) {
	t.Helper()
	dir = t.TempDir()
	a, b = mirrortest.Bytes(100<<10, seed), mirrortest.Bytes(60<<10, seed+1)
	mi = torrenttest.Make(t, dir, "pair", 64<<10, []torrenttest.File{{Path: "a.bin", Data: a}, {Path: "b.bin", Data: b}})
	info, err := mi.UnmarshalInfo()
	if err != nil {
		t.Fatal(err)
	}
	return dir, a, b, mi, info
}

// A read of a piece after the storage closed (what the torrent library
// does for a peer's request it took before the torrent was dropped) gets
// the piece's bytes, not an error: anacrolix/torrent panics on an error
// there, and the whole program would end.
func TestReadAfterClose(t *testing.T) {
	t.Parallel()
	dir, a, b, mi, info := pairOnDisk(t, 31)
	s := &braidStorage{dir: dir, comp: &MemCompletion{}}
	ts, err := s.open(&info, mi.HashInfoBytes())
	if err != nil {
		t.Fatal(err)
	}
	// Piece 1 spans both files: a.bin from 64 KiB, b.bin's first 28 KiB.
	want := append(bytes.Clone(a[64<<10:]), b[:28<<10]...)
	read := func() ([]byte, error) {
		got := make([]byte, 64<<10)
		_, err := ts.piece(info.Piece(1)).ReadAt(got, 0)
		return got, err
	}
	if got, err := read(); err != nil || !bytes.Equal(got, want) {
		t.Fatalf("before the close: %v, right bytes %v", err, bytes.Equal(got, want))
	}
	if err := ts.close(); err != nil {
		t.Fatal(err)
	}
	if got, err := read(); err != nil || !bytes.Equal(got, want) {
		t.Fatalf("after the close: %v, right bytes %v", err, bytes.Equal(got, want))
	}
}

// Pieces recorded done whose bytes are no longer on disk (the download
// folder emptied, a file deleted or cut short since) are not taken as
// done: they are fetched again. A download once stayed "downloading" at
// 256 of 256 pieces, with no file, waiting for nothing.
func TestRecordedPiecesGoneFromDisk(t *testing.T) {
	t.Parallel()
	dir, _, _, mi, info := pairOnDisk(t, 33)
	comp := &MemCompletion{}
	if err := comp.Set(mi.HashInfoBytes().HexString(), []int{0, 1, 2}, true); err != nil {
		t.Fatal(err)
	}
	complete := func() []bool {
		t.Helper()
		s := &braidStorage{dir: dir, comp: comp}
		ts, err := s.open(&info, mi.HashInfoBytes())
		if err != nil {
			t.Fatal(err)
		}
		defer ts.close()
		var out []bool
		for i := range info.NumPieces() {
			c := ts.piece(info.Piece(i)).Completion()
			out = append(out, c.Ok && c.Complete)
		}
		return out
	}
	if got := complete(); !slices.Equal(got, []bool{true, true, true}) {
		t.Fatalf("with both files there, pieces done %v, want all", got)
	}
	// b.bin cut to 20 KiB: piece 1 (a.bin's end, b.bin's first 28 KiB)
	// and piece 2 lose bytes; piece 0 is all a.bin's.
	if err := os.Truncate(filepath.Join(dir, "pair", "b.bin"), 20<<10); err != nil {
		t.Fatal(err)
	}
	if got := complete(); !slices.Equal(got, []bool{true, false, false}) {
		t.Errorf("with b.bin cut short, pieces done %v, want only piece 0", got)
	}
	if err := os.RemoveAll(filepath.Join(dir, "pair")); err != nil {
		t.Fatal(err)
	}
	if got := complete(); !slices.Equal(got, []bool{false, false, false}) {
		t.Errorf("with the folder gone, pieces done %v, want none", got)
	}
}
