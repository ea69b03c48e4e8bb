package torrent

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"braid/engine/torrent/torrenttest"
)

// Verify rechecks a torrent's file on disk against its piece hashes: a
// good file passes, a changed byte fails its piece, a piece shared with
// a file not on disk is unchecked, and a file on disk at neither name is
// missing.
func TestVerifyChecksAgainstThePieces(t *testing.T) {
	t.Parallel()
	a, b := randomBytes(t, 2*testPieceLen+100), randomBytes(t, testPieceLen+7)
	src := t.TempDir()
	mi := torrenttest.Make(t, src, "pack", testPieceLen, []testFile{{Path: "a.bin", Data: a}, {Path: "b.bin", Data: b}})
	spec := specOf(t, mi)
	dir := src // Make wrote the files where a download would be
	ctx := context.Background()

	for _, name := range []string{"pack/a.bin", "pack/b.bin"} {
		c, err := Verify(ctx, dir, spec, name)
		if err != nil || !c.OK() || c.Unchecked != 0 {
			t.Fatalf("%s, as made: %+v, %v", name, c, err)
		}
	}
	if c, _ := Verify(ctx, dir, spec, "pack/a.bin"); c.Pieces != 3 {
		t.Errorf("a.bin spans %d pieces, want 3", c.Pieces)
	}

	// One changed byte in b.bin's last piece.
	bad := append([]byte(nil), b...)
	bad[len(bad)-1] ^= 0xff
	if err := os.WriteFile(filepath.Join(dir, "pack", "b.bin"), bad, 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := Verify(ctx, dir, spec, "pack/b.bin")
	if err != nil || c.OK() || len(c.Bad) != 1 || c.Bad[0] != 3 {
		t.Fatalf("b.bin with a changed byte: %+v, %v; want piece 3 bad", c, err)
	}
	// Downloading as b.bin.part, the same.
	if err := os.Rename(filepath.Join(dir, "pack", "b.bin"), filepath.Join(dir, "pack", "b.bin"+partSuffix)); err != nil {
		t.Fatal(err)
	}
	if c, err := Verify(ctx, dir, spec, "pack/b.bin"); err != nil || len(c.Bad) != 1 {
		t.Errorf("b.bin.part: %+v, %v", c, err)
	}

	// Without a.bin, the piece b.bin shares with it cannot be checked.
	if err := os.Remove(filepath.Join(dir, "pack", "a.bin")); err != nil {
		t.Fatal(err)
	}
	if c, err := Verify(ctx, dir, spec, "pack/a.bin"); err != nil || !c.Missing || c.OK() {
		t.Errorf("a.bin removed: %+v, %v; want missing", c, err)
	}
	c, err = Verify(ctx, dir, spec, "pack/b.bin")
	if err != nil || c.Unchecked != 1 || c.Pieces != 2 {
		t.Errorf("b.bin beside no a.bin: %+v, %v; want 1 of 2 pieces unchecked", c, err)
	}
	if _, err := Verify(ctx, dir, spec, "pack/none.bin"); err == nil {
		t.Error("a file the torrent does not have verified")
	}
}
