package par2

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// needPar2 returns the path of par2cmdline or skips: the interop tests
// check Braid against the real program, and nothing else can stand in.
func needPar2(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("par2")
	if err != nil {
		if runtime.GOOS == "windows" {
			t.Skip("par2cmdline is not installed in the Wine prefix; the interop tests run on Linux, where the setup installs Debian's par2")
		}
		t.Skip("par2cmdline (Debian's par2) is not installed; the setup step installs it")
	}
	return p
}

func runPar2(t *testing.T, par2 string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(par2, args...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// Braid repairs a file from a set par2cmdline made.
func TestInteropBraidRepairsPar2cmdlineSet(t *testing.T) {
	par2 := needPar2(t)
	dir := t.TempDir()
	const size = 3<<20 + 777
	path := writeRandom(t, dir, "movie.mkv", size, 11)
	want, _ := os.ReadFile(path)
	if out, err := runPar2(t, par2, "create", "-q", "-r5", "-b1000", filepath.Join(dir, "movie.mkv.par2"), path); err != nil {
		t.Fatalf("par2 create: %v\n%s", err, out)
	}
	s := openSet(t, filepath.Join(dir, "movie.mkv.par2"))
	if s.Slices() != 1000 || s.RecoveryBlocks() != 50 {
		t.Fatalf("set has %d slices and %d recovery blocks, want 1000 and 50", s.Slices(), s.RecoveryBlocks())
	}
	slice := s.SliceSize
	damage(t, path, 100, 0, 5*slice, 400*slice+7, 999*slice)
	rep, n, err := verifyRepair(t, s, path, RepairOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !equalInts(rep.Damaged, []int{0, 5, 400, 999}) || n != 4 {
		t.Fatalf("damaged %v, rebuilt %d", rep.Damaged, n)
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, want) {
		t.Fatal("the file Braid repaired differs from the original")
	}
	// And par2cmdline agrees the file is whole again.
	if out, err := runPar2(t, par2, "verify", "-q", filepath.Join(dir, "movie.mkv.par2")); err != nil {
		t.Fatalf("par2 verify after Braid's repair: %v\n%s", err, out)
	}
}

// par2cmdline verifies and repairs with a set Braid made.
func TestInteropPar2cmdlineUsesBraidSet(t *testing.T) {
	par2 := needPar2(t)
	dir := t.TempDir()
	const size = 512<<10 + 3
	path := writeRandom(t, dir, "disk.img", size, 12)
	want, _ := os.ReadFile(path)
	paths, err := Create(context.Background(), path, CreateOptions{Percent: 10})
	if err != nil {
		t.Fatal(err)
	}
	index := paths[0]
	if out, err := runPar2(t, par2, "verify", index); err != nil {
		t.Fatalf("par2 verify of Braid's set: %v\n%s", err, out)
	}
	s := openSet(t, index)
	slice := s.SliceSize
	damage(t, path, 64, 3*slice, 1000*slice, size-64)
	if out, err := runPar2(t, par2, "verify", index); err == nil {
		t.Fatalf("par2 verify passed a damaged file:\n%s", out)
	}
	out, err := runPar2(t, par2, "repair", index)
	if err != nil {
		t.Fatalf("par2 repair with Braid's set: %v\n%s", err, out)
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, want) {
		t.Fatalf("the file par2cmdline repaired differs from the original\n%s", out)
	}
	if !bytes.Contains([]byte(out), []byte("Repair complete")) {
		t.Fatalf("par2 repair did not say it repaired:\n%s", out)
	}
}

// Too much damage for a par2cmdline set: a sentence with the shortfall.
func TestInteropTooMuchDamage(t *testing.T) {
	par2 := needPar2(t)
	dir := t.TempDir()
	path := writeRandom(t, dir, "a.bin", 1<<20, 13)
	if out, err := runPar2(t, par2, "create", "-q", "-c2", "-b100", path+".par2", path); err != nil {
		t.Fatalf("par2 create: %v\n%s", err, out)
	}
	s := openSet(t, path+".par2")
	for i := int64(0); i < 56; i++ {
		damage(t, path, 1, i*s.SliceSize)
	}
	before, _ := os.ReadFile(path)
	_, _, err := verifyRepair(t, s, path, RepairOptions{})
	if err == nil || err.Error() != "not enough recovery blocks: 54 short (56 damaged slices, 2 recovery blocks)" {
		t.Fatalf("err = %v", err)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
		t.Fatal("the file changed")
	}
}

// A par2cmdline set of two files: the slices are numbered across both in
// the main packet's order, and Braid mends damage in each.
func TestInteropTwoFileSet(t *testing.T) {
	par2 := needPar2(t)
	dir := t.TempDir()
	a := writeRandom(t, dir, "a.bin", 300<<10+5, 14)
	b := writeRandom(t, dir, "b.bin", 200<<10, 15)
	wantA, _ := os.ReadFile(a)
	wantB, _ := os.ReadFile(b)
	index := filepath.Join(dir, "set.par2")
	if out, err := runPar2(t, par2, "create", "-q", "-r10", "-b500", index, a, b); err != nil {
		t.Fatalf("par2 create: %v\n%s", err, out)
	}
	s := openSet(t, index)
	if len(s.Files) != 2 {
		t.Fatalf("%d files in the set", len(s.Files))
	}
	damage(t, a, 9, 1000, 200<<10)
	damage(t, b, 9, 5, 100<<10)
	var files []ReadWriterAt
	var reports []FileReport
	for i, f := range s.Files {
		fh, err := os.OpenFile(filepath.Join(dir, f.Name), os.O_RDWR, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer fh.Close()
		st, _ := fh.Stat()
		rep, err := s.Verify(context.Background(), i, fh, st.Size())
		if err != nil || len(rep.Damaged) != 2 {
			t.Fatalf("%s: damaged %v, %v", f.Name, rep.Damaged, err)
		}
		files = append(files, fh)
		reports = append(reports, rep)
	}
	n, err := s.Repair(context.Background(), files, reports, RepairOptions{})
	if err != nil || n != 4 {
		t.Fatalf("rebuilt %d: %v", n, err)
	}
	if got, _ := os.ReadFile(a); !bytes.Equal(got, wantA) {
		t.Fatal("a.bin differs after repair")
	}
	if got, _ := os.ReadFile(b); !bytes.Equal(got, wantB) {
		t.Fatal("b.bin differs after repair")
	}
}
