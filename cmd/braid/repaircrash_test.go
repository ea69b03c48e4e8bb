package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"braid/engine/mirrortest"
)

// TestRepairCrashChild is the braid repair that TestRepairAfterCrash kills
// half way; it does nothing unless that test started it.
func TestRepairCrashChild(t *testing.T) {
	t.Parallel()
	meta, dir := os.Getenv("BRAID_REPAIR_CRASH_META"), os.Getenv("BRAID_REPAIR_CRASH_DIR")
	if meta == "" {
		t.Skip("run by TestRepairAfterCrash")
	}
	var out, errOut bytes.Buffer
	cmdRepair(context.Background(), []string{"--metalink", meta, "-d", dir}, &out, &errOut)
}

// TestRepairAfterCrash kills a real repair process after it mended the
// first of two bad pieces: the file is repaired in place (same file, no
// copy beside it), the crash leaves the first piece good and the second
// bad, and a second repair fetches only the second.
func TestRepairAfterCrash(t *testing.T) {
	t.Parallel()
	data := pcData(8*rL, 29)
	m := mirrortest.New(t, data, mirrortest.Rate(4<<10)) // a piece takes 4 s
	meta := pcMeta4(t, pcFile("a.bin", data, rL, m.URL()))
	dir := t.TempDir()
	pcWrite(t, dir, "a.bin", pcFlip(data, 1*rL+3, 6*rL+7))
	path := filepath.Join(dir, "a.bin")
	before, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	piece := func(b []byte, i int) []byte { return b[i*rL : (i+1)*rL] }

	child := exec.Command(os.Args[0], "-test.run=^TestRepairCrashChild$")
	child.Env = append(os.Environ(), "BRAID_REPAIR_CRASH_META="+meta, "BRAID_REPAIR_CRASH_DIR="+dir)
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		b, err := os.ReadFile(path)
		if err == nil && bytes.Equal(piece(b, 1), piece(data, 1)) {
			break
		}
		if time.Now().After(deadline) {
			child.Process.Kill()
			child.Wait()
			t.Fatal("the repair did not mend piece 1 within a minute")
		}
		time.Sleep(20 * time.Millisecond)
	}
	child.Process.Kill()
	child.Wait()

	mid := rRead(t, path)
	if bytes.Equal(piece(mid, 6), piece(data, 6)) {
		t.Fatal("piece 6 was mended before the kill: the test did not crash a repair half way")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("the folder holds %d entries after the crash, want only a.bin (no copy, no temporary)", len(entries))
	}
	// The mirror may go on writing to the dead child's connection until
	// it sees it closed (under Windows, later than under Linux): count
	// from when no response is in flight.
	deadline = time.Now().Add(30 * time.Second)
	for m.InFlight().Now() > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("the mirror still serves %d responses after the kill", m.InFlight().Now())
		}
		time.Sleep(20 * time.Millisecond)
	}
	served := m.BytesServed()
	code, out, errOut := pcRun(t, cmdRepair, "--metalink", meta, "-d", dir)
	if code != 0 {
		t.Fatalf("second repair: exit %d\n%s%s", code, out, errOut)
	}
	if !bytes.Equal(rRead(t, path), data) {
		t.Fatal("the file is not the original after the second repair")
	}
	if got := m.BytesServed() - served; got != rL {
		t.Errorf("the second repair fetched %d bytes, want the one bad piece left (%d)", got, rL)
	}
	after, err := os.Stat(path)
	if err != nil || !os.SameFile(before, after) {
		t.Errorf("a.bin is another file after the repair (%v): it was not repaired in place", err)
	}
	rClean(t, dir)
}

// TestRepairNoUsableMirror: a mirror that cannot serve the bad pieces (it
// ignores ranges) is let go, and the repair says the file is not repaired
// rather than calling it good.
func TestRepairNoUsableMirror(t *testing.T) {
	t.Parallel()
	data := pcData(6*rL, 30)
	m := mirrortest.New(t, data, mirrortest.NoRanges())
	meta := pcMeta4(t, pcFile("a.bin", data, rL, m.URL()))
	dir := t.TempDir()
	bad := pcFlip(data, 3*rL)
	pcWrite(t, dir, "a.bin", bad)
	code, out, errOut := pcRun(t, cmdRepair, "--metalink", meta, "-d", dir)
	if code != 1 || !strings.Contains(out, "NOT REPAIRED") || !strings.Contains(out, "still bad") {
		t.Fatalf("exit %d, want 1 and NOT REPAIRED ... still bad:\n%s%s", code, out, errOut)
	}
	if !bytes.Equal(rRead(t, filepath.Join(dir, "a.bin")), bad) {
		t.Fatal("a failed repair changed the file")
	}
}

// TestRepairReadOnlyGoodFile: a good file the user may not write is
// checked, not opened for writing, and found OK.
func TestRepairReadOnlyGoodFile(t *testing.T) {
	t.Parallel()
	if os.Geteuid() == 0 {
		t.Skip("root writes any file: a read-only file cannot refuse it")
	}
	data := pcData(4*rL, 31)
	m := mirrortest.New(t, data)
	meta := pcMeta4(t, pcFile("a.bin", data, rL, m.URL()))
	dir := t.TempDir()
	pcWrite(t, dir, "a.bin", data)
	if err := os.Chmod(filepath.Join(dir, "a.bin"), 0o444); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := pcRun(t, cmdRepair, "--metalink", meta, "-d", dir)
	if code != 0 || !strings.Contains(out, "a.bin: OK, nothing to repair") {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
}
