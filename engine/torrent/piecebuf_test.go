package torrent

import (
	"bytes"
	"crypto/sha1"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// A piece being downloaded is held in memory: its blocks, written in any
// order, read back and hash from there, nothing reaches its files until
// it verified, and then every byte lands where it belongs, across the
// two files the piece spans. A piece that failed its hash leaves nothing
// behind, and one unfinished when the torrent closes goes to disk.
func TestHeldPieces(t *testing.T) {
	t.Parallel()
	_, a, b, mi, info := pairOnDisk(t, 41)
	dir := t.TempDir()
	s := &braidStorage{dir: dir, comp: &MemCompletion{}}
	ts, err := s.open(&info, mi.HashInfoBytes())
	if err != nil {
		t.Fatal(err)
	}
	all := append(slices.Clone(a), b...)
	const block = 16 << 10
	piece := func(i int) (*pieceImpl, []byte) {
		p := ts.piece(info.Piece(i)).(*pieceImpl)
		return p, all[p.off : p.off+p.length]
	}
	onDisk := func(name string) []byte {
		t.Helper()
		got, err := os.ReadFile(filepath.Join(dir, "pair", name))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			t.Fatal(err)
		}
		return got
	}

	// Piece 1: a.bin from 64 KiB, then b.bin's first 28 KiB.
	p, want := piece(1)
	for _, k := range []int64{2, 0} {
		if _, err := p.WriteAt(want[k*block:(k+1)*block], k*block); err != nil {
			t.Fatal(err)
		}
	}
	got := make([]byte, p.length)
	if _, err := p.ReadAt(got, 0); err != nil {
		t.Fatal(err)
	}
	half := slices.Clone(want)
	clear(half[block : 2*block])
	clear(half[3*block:])
	if !bytes.Equal(got, half) {
		t.Fatal("blocks 0 and 2 held do not read back as written, with zeros between")
	}
	if d := onDisk("a.bin.part"); d != nil {
		t.Fatalf("a.bin.part holds %d bytes before the piece verified", len(d))
	}
	for _, k := range []int64{3, 1} {
		if _, err := p.WriteAt(want[k*block:(k+1)*block], k*block); err != nil {
			t.Fatal(err)
		}
	}
	h := sha1.New()
	if n, err := p.WriteTo(h); err != nil || n != p.length {
		t.Fatalf("WriteTo: %d bytes, %v", n, err)
	}
	if [20]byte(h.Sum(nil)) != info.Piece(1).V1Hash().Unwrap() {
		t.Fatal("the held piece hashes wrong")
	}
	if err := p.MarkComplete(); err != nil {
		t.Fatal(err)
	}
	if d := onDisk("a.bin.part"); len(d) != len(a) || !bytes.Equal(d[64<<10:], a[64<<10:]) {
		t.Fatalf("a.bin.part: %d bytes, its piece-1 part right: %v", len(d), len(d) == len(a) && bytes.Equal(d[64<<10:], a[64<<10:]))
	}
	if d := onDisk("b.bin.part"); len(d) != 28<<10 || !bytes.Equal(d, b[:28<<10]) {
		t.Fatalf("b.bin.part: %d bytes, want b.bin's first 28 KiB", len(d))
	}
	if ts.held.get(1) != nil {
		t.Fatal("piece 1 still held after it verified")
	}

	// Piece 0 fails its hash: what it held is dropped.
	p, want = piece(0)
	if _, err := p.WriteAt(want[:block], 0); err != nil {
		t.Fatal(err)
	}
	if err := p.MarkNotComplete(); err != nil {
		t.Fatal(err)
	}
	got = make([]byte, block)
	if _, err := p.ReadAt(got, 0); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, make([]byte, block)) {
		t.Fatal("a piece marked not complete still reads its dropped bytes")
	}

	// Piece 2 (b.bin from 28 KiB) is unfinished at the close: its block
	// goes to disk, where a restart hashes it.
	p, want = piece(2)
	if _, err := p.WriteAt(want[:block], 0); err != nil {
		t.Fatal(err)
	}
	if err := ts.close(); err != nil {
		t.Fatal(err)
	}
	if d := onDisk("b.bin.part"); len(d) != 44<<10 || !bytes.Equal(d[28<<10:], b[28<<10:44<<10]) {
		t.Fatalf("b.bin.part after the close: %d bytes, want 44 KiB with piece 2's first block", len(d))
	}
}

// The memory held is bounded: a piece longer than heldPieceMax, or one
// begun when heldMax is taken, is not held (its blocks go to disk), and a
// verified piece's buffer serves the next.
func TestHeldPiecesBounded(t *testing.T) {
	t.Parallel()
	var h heldPieces
	blk := make([]byte, 16<<10)
	if h.write(0, heldPieceMax+1, blk, 0) {
		t.Fatal("a piece longer than heldPieceMax was held")
	}
	const n = heldMax / 4
	for i := range 4 {
		if !h.write(i, n, blk, 0) {
			t.Fatalf("piece %d not held with %d of %d bytes taken", i, i*n, heldMax)
		}
	}
	if h.write(4, n, blk, 0) {
		t.Fatal("a piece was held beyond heldMax")
	}
	if !h.write(2, n, blk, 16<<10) {
		t.Fatal("a held piece's next block was not held")
	}
	h.drop(1)
	if !h.write(4, n, blk, 0) {
		t.Fatal("a released buffer did not serve the next piece")
	}
	if h.bytes != heldMax {
		t.Fatalf("%d bytes allocated, want %d (the released buffer reused)", h.bytes, heldMax)
	}
	h.close()
	if h.write(5, n, blk, 0) {
		t.Fatal("a piece was held after the close")
	}
}

func TestAddRange(t *testing.T) {
	t.Parallel()
	var rs [][2]int64
	for _, r := range [][2]int64{{32, 48}, {0, 16}, {64, 80}, {16, 32}, {40, 70}, {90, 90}} {
		rs = addRange(rs, r[0], r[1])
	}
	if want := [][2]int64{{0, 80}}; !slices.Equal(rs, want) {
		t.Fatalf("got %v, want %v", rs, want)
	}
	rs = addRange(rs, 100, 110)
	rs = addRange(rs, 85, 95)
	if want := [][2]int64{{0, 80}, {85, 95}, {100, 110}}; !slices.Equal(rs, want) {
		t.Fatalf("got %v, want %v", rs, want)
	}
}

// A stream reads a torrent's blocks as they arrive, so a read may come
// while the piece is being written out: it must get the piece's bytes.
// Dropping the piece before its bytes were on disk once gave a player
// 64 KiB of zeros (under Wine, in ui/bridge's TestOpenLiveTorrent).
func TestReadWhileHeldPieceIsWritten(t *testing.T) {
	t.Parallel()
	_, a, b, mi, info := pairOnDisk(t, 43)
	all := append(slices.Clone(a), b...)
	s := &braidStorage{dir: t.TempDir(), comp: &MemCompletion{}}
	ts, err := s.open(&info, mi.HashInfoBytes())
	if err != nil {
		t.Fatal(err)
	}
	defer ts.close()
	p := ts.piece(info.Piece(1)).(*pieceImpl)
	want := all[p.off : p.off+p.length]
	if _, err := p.WriteAt(want, 0); err != nil {
		t.Fatal(err)
	}
	read := func(when string) {
		got := make([]byte, p.length)
		if _, err := p.ReadAt(got, 0); err != nil || !bytes.Equal(got, want) {
			t.Errorf("a read %s: %v, right bytes %v", when, err, bytes.Equal(got, want))
		}
	}
	ts.writingHeld = func() { read("as the piece is written out") }
	if err := p.MarkComplete(); err != nil {
		t.Fatal(err)
	}
	read("after")
}
