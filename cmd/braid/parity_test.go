package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"braid/engine/metalink"
	"braid/engine/mirrortest"
)

// parityFile writes data as dir/name and makes its parity set with
// braid make --parity, returning the .meta4 text make printed.
func parityFile(t *testing.T, dir, name string, data []byte, percent string, extra ...string) string {
	t.Helper()
	pcWrite(t, dir, name, data)
	args := append([]string{"--parity", percent, "--piece-length", "16K"}, extra...)
	code, out, errOut := pcRun(t, cmdMake, append(args, filepath.Join(dir, name))...)
	if code != 0 {
		t.Fatalf("braid make --parity: exit %d\n%s", code, errOut)
	}
	return out
}

func TestMakeParityWritesAndListsSet(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	data := pcData(300<<10+1, 31)
	out := parityFile(t, dir, "a.bin", data, "10%", "--url", "https://example.org/pub")
	doc, err := metalink.Parse(strings.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	// About 2000 slices (par2cmdline's default): 1970 of 156 bytes; 10% is
	// 197 recovery blocks, in volumes of 1, 2, 4, ... 64 and the 70 left.
	want := []string{"a.bin", "a.bin.par2", "a.bin.vol000+01.par2", "a.bin.vol001+02.par2", "a.bin.vol003+04.par2",
		"a.bin.vol007+08.par2", "a.bin.vol015+16.par2", "a.bin.vol031+32.par2", "a.bin.vol063+64.par2", "a.bin.vol127+70.par2"}
	var got []string
	for _, f := range doc.Files {
		got = append(got, f.Name)
		st, err := os.Stat(filepath.Join(dir, f.Name))
		if err != nil {
			t.Fatalf("the .meta4 lists %s, which make did not write: %v", f.Name, err)
		}
		if f.Size != st.Size() || len(f.Hashes) == 0 || len(f.URLs) != 1 || f.URLs[0].URL != "https://example.org/pub/"+f.Name {
			t.Errorf("%s: size %d (file %d), hashes %v, urls %v", f.Name, f.Size, st.Size(), f.Hashes, f.URLs)
		}
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("the .meta4 lists\n%v\nwant\n%v", got, want)
	}
	// Running it again would overwrite the set: refused, in a sentence.
	code, _, errOut := pcRun(t, cmdMake, "--parity", "10%", filepath.Join(dir, "a.bin"))
	if code != 1 || !strings.Contains(errOut, "is already there; remove the old parity set first") {
		t.Fatalf("second make: exit %d, %q", code, errOut)
	}
	if code, _, errOut := pcRun(t, cmdMake, "--parity", "0%", filepath.Join(dir, "a.bin")); code != 2 || !strings.Contains(errOut, "is not a share of the file from 1% to 100%") {
		t.Fatalf("--parity 0%%: exit %d, %q", code, errOut)
	}
	// par2cmdline reads the set Braid wrote.
	if par2, err := exec.LookPath("par2"); err == nil {
		if out, err := exec.Command(par2, "verify", filepath.Join(dir, "a.bin.par2")).CombinedOutput(); err != nil {
			t.Fatalf("par2 verify: %v\n%s", err, out)
		}
	}
}

func TestVerifyAndRepairPar2(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	data := pcData(200<<10, 32)
	parityFile(t, dir, "b.bin", data, "5%")
	index := filepath.Join(dir, "b.bin.par2")
	// 2000 slices of 104 bytes; 100 recovery blocks. Damage slices 10,
	// 11 (one run) and 1500.
	pcWrite(t, dir, "b.bin", pcFlip(data, 10*104, 11*104+50, 1500*104+103))

	code, out, errOut := pcRun(t, cmdVerify, "--par2", index)
	if code != 1 {
		t.Fatalf("verify: exit %d\n%s%s", code, out, errOut)
	}
	for _, want := range []string{
		"b.bin: BAD\n  3 of 1970 PAR2 slices fail their checksums:\n    bytes 1040-1247 (slices 10-11)\n    bytes 156000-156103 (slice 1500)\n",
		"parity: 99 recovery blocks available, 3 needed\n",
		"To repair from parity: braid repair --par2 " + index + "\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("verify output lacks %q:\n%s", want, out)
		}
	}
	code, out, _ = pcRun(t, cmdVerify, "--par2", index, "--json")
	var j parityJSON
	if err := json.Unmarshal([]byte(out), &j); err != nil || code != 1 {
		t.Fatalf("verify --json: exit %d, %v\n%s", code, err, out)
	}
	if j.OK || j.Par2.RecoveryBlocks != 99 || j.Par2.Needed != 3 || j.Par2.Short != 0 || len(j.Files) != 1 ||
		j.Files[0].Status != statusBad || len(j.Files[0].DamagedSlices) != 3 || len(j.Files[0].BadRanges) != 2 {
		t.Fatalf("verify --json: %+v", j)
	}

	code, out, errOut = pcRun(t, cmdRepair, "--par2", index)
	if code != 0 || out != "b.bin: repaired: 3 of 1970 slices rebuilt from parity; verified (PAR2 MD5)\n" {
		t.Fatalf("repair: exit %d\n%s%s", code, out, errOut)
	}
	if !bytes.Equal(rRead(t, filepath.Join(dir, "b.bin")), data) {
		t.Fatal("the file is not the original after repair")
	}
	code, out, _ = pcRun(t, cmdVerify, "--par2", index)
	if code != 0 || !strings.HasPrefix(out, "b.bin: OK (204800 bytes; 1970 PAR2 slices and the whole-file MD5 match)\n") {
		t.Fatalf("verify after repair: exit %d\n%s", code, out)
	}
	// A FILE named on the command line, somewhere else under another name.
	other := filepath.Join(t.TempDir(), "copy.bin")
	pcWrite(t, filepath.Dir(other), "copy.bin", pcFlip(data, 0))
	code, out, errOut = pcRun(t, cmdRepair, "--par2", index, other)
	if code != 0 || !strings.Contains(out, "repaired: 1 of 1970 slices") || !bytes.Equal(rRead(t, other), data) {
		t.Fatalf("repair of FILE: exit %d\n%s%s", code, out, errOut)
	}
}

func TestRepairPar2TooMuchDamage(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	data := pcData(64<<10, 33)
	parityFile(t, dir, "c.bin", data, "1%")
	index := filepath.Join(dir, "c.bin.par2")
	var offs []int64
	for i := int64(0); i < 40; i++ {
		offs = append(offs, i*33*50)
	}
	bad := pcFlip(data, offs...)
	pcWrite(t, dir, "c.bin", bad)
	code, out, _ := pcRun(t, cmdVerify, "--par2", index)
	if code != 1 || !strings.Contains(out, "parity: 18 recovery blocks available, 40 needed: not enough recovery blocks: 22 short (40 damaged slices, 18 recovery blocks)\n") {
		t.Fatalf("verify: exit %d\n%s", code, out)
	}
	code, out, _ = pcRun(t, cmdRepair, "--par2", index)
	if code != 1 || out != "c.bin: NOT REPAIRED: not enough recovery blocks: 22 short (40 damaged slices, 18 recovery blocks); the file is unchanged\n" {
		t.Fatalf("repair: exit %d\n%q", code, out)
	}
	if !bytes.Equal(rRead(t, filepath.Join(dir, "c.bin")), bad) {
		t.Fatal("a repair that could not succeed changed the file")
	}
}

// Two mirrors serve the same damaged copy: the mirrors cannot mend the
// file, the parity set does, and the metalink's hashes then prove it.
func TestRepairMirrorsThenParity(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	data := pcData(24*rL+100, 34)
	damaged := pcFlip(data, 3*rL+5, 17*rL)
	m1 := mirrortest.New(t, damaged)
	m2 := mirrortest.New(t, damaged, mirrortest.Addr("127.0.0.2"))
	pcWrite(t, dir, "d.bin", data)
	code, _, errOut := pcRun(t, cmdMake, "--parity", "5%", "--piece-length", "16K", filepath.Join(dir, "d.bin"))
	if code != 0 {
		t.Fatal(errOut)
	}
	meta := pcMeta4(t, pcFile("d.bin", data, rL, m1.URL(), m2.URL()))
	pcWrite(t, dir, "d.bin", damaged)

	code, out, errOut := pcRun(t, cmdRepair, "--metalink", meta, "-d", dir, "--par2", filepath.Join(dir, "d.bin.par2"))
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	want := "d.bin: repaired: 0 of 25 pieces fetched again, "
	if !strings.HasPrefix(out, want) || !strings.Contains(out, " bytes from mirrors, 2 pieces rebuilt from parity; verified (sha-256)\n") {
		t.Fatalf("output %q, want it to start %q", out, want)
	}
	if !bytes.Equal(rRead(t, filepath.Join(dir, "d.bin")), data) {
		t.Fatal("the file is not the original after repair")
	}
	if m1.Requests()+m2.Requests() == 0 {
		t.Fatal("the mirrors were not asked first")
	}
}

func TestVerifyPar2Errors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	junk := filepath.Join(dir, "x.par2")
	pcWrite(t, dir, "x.par2", []byte("not parity at all"))
	code, _, errOut := pcRun(t, cmdVerify, "--par2", junk)
	if code != 1 || !strings.Contains(errOut, "x.par2 is not a PAR2 parity set, or its main packet is damaged in every copy") {
		t.Fatalf("exit %d, %q", code, errOut)
	}
	code, _, errOut = pcRun(t, cmdVerify, "--par2", junk, "--metalink", junk)
	if code != 2 || !strings.Contains(errOut, "--par2 checks against parity alone") {
		t.Fatalf("exit %d, %q", code, errOut)
	}
	if runtime.GOOS != "windows" {
		code, _, errOut = pcRun(t, cmdRepair, "--par2", filepath.Join(dir, "none.par2"))
		if code != 1 || !strings.Contains(errOut, "none.par2") {
			t.Fatalf("exit %d, %q", code, errOut)
		}
	}
}

func TestInspectPar2(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	parityFile(t, dir, "e.bin", pcData(40000, 35), "10%")
	index := filepath.Join(dir, "e.bin.par2")
	code, out, errOut := pcRun(t, cmdInspect, index)
	want := "PAR2 parity set " + index + " (made by Braid)\n  2000 slices of 20 bytes, 200 recovery blocks in 8 volumes\n  mends up to 200 damaged slices (10.0% of the data)\n  file e.bin: 40000 bytes, 2000 slices, md5 "
	if code != 0 || !strings.HasPrefix(out, want) {
		t.Fatalf("exit %d\n%s%s\nwant prefix\n%s", code, out, errOut, want)
	}
	code, out, _ = pcRun(t, cmdInspect, "--json", index)
	var j parityInspectJSON
	if err := json.Unmarshal([]byte(out), &j); err != nil || code != 0 || j.RecoveryBlocks != 200 || len(j.Volumes) != 8 || j.Files[0].Name != "e.bin" {
		t.Fatalf("exit %d %v\n%s", code, err, out)
	}
}
