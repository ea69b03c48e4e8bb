package engine

import (
	"os"
	"path/filepath"
	"testing"

	"braid/engine/mirrortest"
	"braid/internal/testkit"
)

// TestOtherDrive: the download folder on another drive than the temporary
// folder and the working directory. Under Wine t.TempDir is on C: and the
// package folder (the working directory) on Z:, as on many Windows
// machines with a data drive; both ways land and verify, and a paused
// download resumes on the other drive.
func TestOtherDrive(t *testing.T) {
	t.Parallel()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	if filepath.VolumeName(wd) == filepath.VolumeName(tmp) {
		t.Skipf("the working directory (%s) and the temporary folder (%s) are on one drive here", wd, tmp)
	}
	onWD, err := os.MkdirTemp(wd, "braid-drive-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(onWD) })
	data := testkit.Data(512 << 10)
	m := mirrortest.New(t, data)
	for _, dir := range []string{
		tmp,                 // C:\users\...\Temp, absolute, from a process on Z:
		onWD,                // Z:\work\..., absolute
		filepath.Base(onWD), // relative to the working directory on Z:
		filepath.Join(onWD, "sub"),
	} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		f := fileFor("d.bin", data, 64<<10, m.URL())
		if _, err := get(t, &Client{}, &Request{Dir: dir, File: f}); err != nil {
			t.Fatalf("%s: %v", dir, err)
		}
		wantFile(t, dir, "d.bin", data)
		if err := os.Remove(filepath.Join(dir, "d.bin")); err != nil {
			t.Fatal(err)
		}
	}
}
