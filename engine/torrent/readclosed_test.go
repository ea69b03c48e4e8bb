package torrent

import (
	"bytes"
	"testing"

	"braid/engine/mirrortest"
	"braid/engine/torrent/torrenttest"
)

// A read of a piece after the storage closed (what the torrent library
// does for a peer's request it took before the torrent was dropped) gets
// the piece's bytes, not an error: anacrolix/torrent panics on an error
// there, and the whole program would end.
func TestReadAfterClose(t *testing.T) {
	dir := t.TempDir()
	a, b := mirrortest.Bytes(100<<10, 31), mirrortest.Bytes(60<<10, 32)
	mi := torrenttest.Make(t, dir, "pair", 64<<10, []torrenttest.File{{Path: "a.bin", Data: a}, {Path: "b.bin", Data: b}})
	info, err := mi.UnmarshalInfo()
	if err != nil {
		t.Fatal(err)
	}
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
