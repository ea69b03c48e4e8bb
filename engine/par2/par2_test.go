package par2

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

// writeRandom writes size pseudo-random bytes to dir/name.
func writeRandom(t testing.TB, dir, name string, size int, seed uint64) string {
	t.Helper()
	b := make([]byte, size)
	r := rand.New(rand.NewPCG(seed, 7))
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// damage overwrites n bytes at each offset with other bytes.
func damage(t testing.TB, path string, n int, offsets ...int64) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, off := range offsets {
		b := make([]byte, n)
		if _, err := f.ReadAt(b, off); err != nil {
			t.Fatal(err)
		}
		for i := range b {
			b[i] ^= 0x5a
		}
		if _, err := f.WriteAt(b, off); err != nil {
			t.Fatal(err)
		}
	}
}

func openSet(t testing.TB, index string) *Set {
	t.Helper()
	vols, err := Volumes(index)
	if err != nil {
		t.Fatal(err)
	}
	s, err := Open(append([]string{index}, vols...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// verifyRepair verifies the one file of the set at path and repairs it.
func verifyRepair(t testing.TB, s *Set, path string, opt RepairOptions) (FileReport, int, error) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	rep, err := s.Verify(context.Background(), 0, f, st.Size())
	if err != nil {
		t.Fatal(err)
	}
	n, err := s.Repair(context.Background(), []ReadWriterAt{f}, []FileReport{rep}, opt)
	return rep, n, err
}

func TestCreateVerifyRepair(t *testing.T) {
	dir := t.TempDir()
	const size = 1<<20 + 123 // a short last slice
	path := writeRandom(t, dir, "data.bin", size, 1)
	want, _ := os.ReadFile(path)
	paths, err := Create(context.Background(), path, CreateOptions{Percent: 5, SliceSize: 4096})
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Base(paths[0]) != "data.bin.par2" || len(paths) < 2 {
		t.Fatalf("wrote %v", paths)
	}
	s := openSet(t, paths[0])
	if s.Slices() != 257 || s.RecoveryBlocks() != 13 {
		t.Fatalf("set has %d slices and %d recovery blocks, want 257 and 13", s.Slices(), s.RecoveryBlocks())
	}
	rep, n, err := verifyRepair(t, s, path, RepairOptions{})
	if err != nil || n != 0 || !rep.OK() {
		t.Fatalf("intact file: report %+v, rebuilt %d, %v", rep, n, err)
	}

	// Damage 5 slices, among them the short last one and the first.
	damage(t, path, 10, 0, 4096*3+100, 4096*100, 4096*200+4000, size-10)
	// Memory small enough to force several passes over each slice.
	rep, n, err = verifyRepair(t, s, path, RepairOptions{Memory: 5 * 1024})
	if err != nil {
		t.Fatal(err)
	}
	if want := []int{0, 3, 100, 200, 256}; !equalInts(rep.Damaged, want) || n != 5 {
		t.Fatalf("damaged %v rebuilt %d, want %v and 5", rep.Damaged, n, want)
	}
	got, _ := os.ReadFile(path)
	if !bytes.Equal(got, want) {
		t.Fatal("repaired file differs from the original")
	}
}

func TestRepairTooMuchDamageLeavesFile(t *testing.T) {
	dir := t.TempDir()
	path := writeRandom(t, dir, "f", 64<<10, 2)
	paths, err := Create(context.Background(), path, CreateOptions{Blocks: 2, SliceSize: 1024})
	if err != nil {
		t.Fatal(err)
	}
	s := openSet(t, paths[0])
	damage(t, path, 4, 0, 2048, 4096, 8192, 10000)
	before, _ := os.ReadFile(path)
	_, _, err = verifyRepair(t, s, path, RepairOptions{})
	var short *ShortError
	if !errors.As(err, &short) || !errors.Is(err, ErrNotEnough) || short.Short() != 3 {
		t.Fatalf("err = %v, want 3 short", err)
	}
	if err.Error() != "not enough recovery blocks: 3 short (5 damaged slices, 2 recovery blocks)" {
		t.Fatalf("message %q", err)
	}
	after, _ := os.ReadFile(path)
	if !bytes.Equal(before, after) {
		t.Fatal("a repair that could not succeed changed the file")
	}
}

func TestRepairTruncatedAndLongFile(t *testing.T) {
	dir := t.TempDir()
	path := writeRandom(t, dir, "f", 40000, 3)
	want, _ := os.ReadFile(path)
	paths, err := Create(context.Background(), path, CreateOptions{Blocks: 4, SliceSize: 4000})
	if err != nil {
		t.Fatal(err)
	}
	s := openSet(t, paths[0])
	if err := os.Truncate(path, 33000); err != nil { // the last 2 slices gone, 1 cut
		t.Fatal(err)
	}
	rep, n, err := verifyRepair(t, s, path, RepairOptions{})
	if err != nil || n != 2 || !equalInts(rep.Damaged, []int{8, 9}) {
		t.Fatalf("truncated: damaged %v rebuilt %d: %v", rep.Damaged, n, err)
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, want) {
		t.Fatal("truncated file not restored")
	}
	f, _ := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	f.Write([]byte("trailing junk"))
	f.Close()
	rep, n, err = verifyRepair(t, s, path, RepairOptions{})
	if err != nil || n != 0 || rep.WholeOK {
		t.Fatalf("long file: %+v rebuilt %d: %v", rep, n, err)
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, want) {
		t.Fatal("long file not cut to its length")
	}
}

func TestDamagedVolumePacketsAreSkipped(t *testing.T) {
	dir := t.TempDir()
	path := writeRandom(t, dir, "f", 20000, 4)
	paths, err := Create(context.Background(), path, CreateOptions{Blocks: 3, SliceSize: 1000})
	if err != nil {
		t.Fatal(err)
	}
	// vol0+1 holds exponent 0; damage its recovery data: that block is lost.
	damage(t, paths[1], 3, 500)
	s := openSet(t, paths[0])
	if s.RecoveryBlocks() != 2 {
		t.Fatalf("%d recovery blocks, want 2 (one damaged)", s.RecoveryBlocks())
	}
	// The index alone damaged: its copy of the critical packets in the
	// volumes still describes the set.
	damage(t, paths[0], 8, 100)
	s = openSet(t, paths[0])
	if len(s.Files) != 1 || s.Files[0].Name != "f" || s.Files[0].Size != 20000 {
		t.Fatalf("files %+v", s.Files)
	}
}

func TestGFInverseAndConstants(t *testing.T) {
	gfTables()
	for _, a := range []uint16{1, 2, 3, 0x1234, 0xffff} {
		if gfMul(a, gfInv(a)) != 1 {
			t.Fatalf("%#x × its inverse ≠ 1", a)
		}
	}
	// x^16 = x^12+x^3+x+1 in this field: 2^16 is 0x100B.
	if gfExp[16] != 0x100B {
		t.Fatalf("2^16 = %#x, want 0x100b", gfExp[16])
	}
	c := inputConstants(MaxSlices + 1)
	if len(c) != MaxSlices || c[0] != 2 || c[1] != 4 || c[2] != 16 || c[3] != 128 {
		t.Fatalf("%d constants, first %v", len(c), c[:4])
	}
	var tb mulTable
	tb.fill(0xbeef)
	src := []byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	dst := make([]byte, 10)
	tb.mulAdd(dst, src)
	for i := 0; i < 10; i += 2 {
		w := uint16(src[i]) | uint16(src[i+1])<<8
		got := uint16(dst[i]) | uint16(dst[i+1])<<8
		if got != gfMul(0xbeef, w) {
			t.Fatalf("word %d: %#x, want %#x", i/2, got, gfMul(0xbeef, w))
		}
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
