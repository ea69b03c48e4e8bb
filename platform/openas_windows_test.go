package platform

import (
	"bytes"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/windows/registry"
)

// The player of these tests is the test binary itself: the open command
// of the test's file class runs it as
//
//	EXE -test.run=^TestOpenAsHelperProcess$ -- braid-openas-helper OUT "%1"
//
// and TestOpenAsHelperProcess writes the argument it was given to OUT,
// and beside it (OUT.head) the first bytes of the file it names, as a
// player would read them.
const openAsHelperMark = "braid-openas-helper"

// TestOpenAsHelperProcess is not a test: it is the player started by the
// test class's open command, and does nothing when run as a test.
func TestOpenAsHelperProcess(t *testing.T) {
	args := flag.Args()
	if len(args) != 3 || args[0] != openAsHelperMark {
		t.Skip("the player of the OpenAs tests, run by them")
	}
	out, target := args[1], args[2]
	if f, err := os.Open(target); err == nil {
		head := make([]byte, 64<<10)
		n, _ := io.ReadFull(f, head)
		f.Close()
		_ = os.WriteFile(out+".head", head[:n], 0o644)
	}
	// Written whole, then named: the test reads OUT only when complete.
	if err := os.WriteFile(out+".tmp", []byte(target), 0o644); err == nil {
		_ = os.Rename(out+".tmp", out)
	}
	os.Exit(0)
}

// testClass registers, for the current user, a file class for ext whose
// open command runs player, or the test binary as the player when player
// is "", and removes it when the test ends. It returns the file the test
// binary writes its argument to.
//
// Windows merges HKCU\Software\Classes into HKEY_CLASSES_ROOT, where the
// shell looks; Wine 8 does not (its HKEY_CLASSES_ROOT is
// HKLM\Software\Classes alone), so there the class is written to
// HKLM\Software\Classes too, which a Wine prefix's user may write.
func testClass(t *testing.T, ext, player string) (out string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	out = filepath.Join(t.TempDir(), "player args")
	progID := "BraidTest" + ext
	command := `"` + exe + `" -test.run=^TestOpenAsHelperProcess$ -- ` + openAsHelperMark + ` "` + out + `" "%1"`
	if player != "" {
		command = `"` + player + `" "%1"`
	}
	register := func(root registry.Key, name string) {
		t.Cleanup(func() {
			for _, k := range []string{progID + `\shell\open\command`, progID + `\shell\open`, progID + `\shell`, progID, ext} {
				if err := registry.DeleteKey(root, classesKey+`\`+k); err != nil && !errors.Is(err, registry.ErrNotExist) {
					t.Errorf(`%s\%s\%s: %v`, name, classesKey, k, err)
				}
			}
		})
		for _, v := range []struct{ key, value string }{
			{progID + `\shell\open\command`, command},
			{ext, progID},
		} {
			k, _, err := registry.CreateKey(root, classesKey+`\`+v.key, registry.SET_VALUE)
			if err != nil {
				t.Fatalf(`%s\%s\%s: %v`, name, classesKey, v.key, err)
			}
			err = k.SetStringValue("", v.value)
			k.Close()
			if err != nil {
				t.Fatalf(`%s\%s\%s: %v`, name, classesKey, v.key, err)
			}
		}
	}
	register(registry.CURRENT_USER, "HKCU")
	if k, err := registry.OpenKey(registry.CLASSES_ROOT, ext, registry.QUERY_VALUE); err == nil {
		k.Close()
		return out
	}
	t.Logf(`HKEY_CLASSES_ROOT does not show HKCU's %s (Wine); registering it in HKLM too`, ext)
	register(registry.LOCAL_MACHINE, "HKLM")
	if k, err := registry.OpenKey(registry.CLASSES_ROOT, ext, registry.QUERY_VALUE); err != nil {
		t.Fatalf(`HKEY_CLASSES_ROOT shows no %s after registering it in HKCU and HKLM: %v`, ext, err)
	} else {
		k.Close()
	}
	return out
}

// waitPlayer waits until the player has written the argument it was
// started with.
func waitPlayer(t *testing.T, out string) string {
	t.Helper()
	for end := time.Now().Add(30 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if b, err := os.ReadFile(out); err == nil {
			return string(b)
		}
	}
	t.Fatal("the extension's open command did not run within 30 s")
	return ""
}

// OpenAs opens a .part with the application registered, in the real
// registry, for its final name's extension: the open command of the
// class runs on the .part itself, whose bytes the player reads; and a
// torrent's loopback URL goes to the same application, as is.
func TestOpenAsRegisteredApplication(t *testing.T) {
	out := testClass(t, ".braidtest", "")
	dir := t.TempDir()
	part := filepath.Join(dir, "my film.braidtest.part")
	data := bytes.Repeat([]byte("braid in order "), 10000)
	if err := os.WriteFile(part, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := OpenAs(part, "my film.braidtest"); err != nil {
		t.Fatal(err)
	}
	got := waitPlayer(t, out)
	a, errA := os.Stat(got)
	b, errB := os.Stat(part)
	if errA != nil || errB != nil || !os.SameFile(a, b) {
		t.Fatalf("the player was given %q, not the .part %s (%v, %v)", got, part, errA, errB)
	}
	head, err := os.ReadFile(out + ".head")
	if err != nil || !bytes.Equal(head, data[:64<<10]) {
		t.Errorf("the player read %d bytes that are not the .part's first 64 KiB (%v)", len(head), err)
	}

	for _, f := range []string{out, out + ".head"} {
		if err := os.Remove(f); err != nil {
			t.Fatal(err)
		}
	}
	const u = "http://127.0.0.1:1234/TOKEN/my%20film.braidtest"
	if err := OpenAs(u, "my film.braidtest"); err != nil {
		t.Fatal(err)
	}
	if got := waitPlayer(t, out); got != u {
		t.Errorf("for a URL the player was given %q, want %q", got, u)
	}
}

// An extension no application is registered for, one whose registered
// program is gone, and a name with no extension, are refused with a
// sentence that says which; a stream's URL (its token) is not in it.
func TestOpenAsNoRegisteredApplication(t *testing.T) {
	if keyExists(t, classesKey+`\.braidnone`) {
		t.Fatal(`HKCU\Software\Classes\.braidnone exists; the test needs an extension nothing opens`)
	}
	if k, err := registry.OpenKey(registry.CLASSES_ROOT, ".braidnone", registry.QUERY_VALUE); err == nil {
		k.Close()
		t.Fatal(`HKEY_CLASSES_ROOT\.braidnone exists; the test needs an extension nothing opens`)
	}
	part := filepath.Join(t.TempDir(), "notes.braidnone.part")
	if err := os.WriteFile(part, []byte("notes"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A class whose player is gone (uninstalled, its key left).
	testClass(t, ".braidgone", filepath.Join(t.TempDir(), "no player.exe"))
	for _, c := range []struct{ target, name, want string }{
		{part, "notes.braidgone", "the application for .braidgone files could not open notes.braidgone: "},
		{"http://127.0.0.1:1/TOKEN/notes.braidgone", "notes.braidgone", "the application for .braidgone files could not open notes.braidgone: "},
		{part, "notes.braidnone", "no application opens .braidnone files here"},
		{"http://127.0.0.1:1/T/notes.braidnone", "notes.braidnone", "no application opens .braidnone files here"},
		{part, "README", "README has no extension to find its application by"},
	} {
		err := OpenAs(c.target, c.name)
		if err == nil {
			t.Errorf("%s as %s, which nothing opens, was opened", c.target, c.name)
			continue
		}
		if msg := err.Error(); !strings.HasPrefix(msg, c.want) || strings.Contains(msg, "Success") || strings.Contains(msg, "://") {
			t.Errorf("%s as %s: %q, want %q and no URL", c.target, c.name, msg, c.want)
		}
		t.Log(err)
	}
}
