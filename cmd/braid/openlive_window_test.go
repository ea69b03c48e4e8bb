//go:build !headless && linux

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"braid/engine/mirrortest"
	"braid/queue"
)

// TestWindowOpenWhileItDownloads opens a running download in order in the
// real window, with the keyboard through the X server: its row menu's
// sixth item, "Open while it downloads" (Pause, Resume, Stop seeding,
// Speed limit…, Download in order, then past the separator the Open
// item), chosen with Down six times and Enter, starts the desktop's
// default application for Matroska video with the growing file. The
// application is a script the test makes the default for video/x-matroska
// in the window's own HOME (a .desktop file and mimeapps.list, as a
// desktop keeps them), so the window finds it through xdg-mime as it
// would the user's player. The script gets a path named film.mkv that is
// the download's film.mkv.part, and the first MiB it reads there is the
// file's.
func TestWindowOpenWhileItDownloads(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("xdg-mime"); err != nil {
		t.Skip("xdg-mime is not installed (Debian: apt-get install xdg-utils)")
	}
	const seed = 29
	rr := newRunningRow(t, "openlive", "film.mkv", seed)
	data := mirrortest.Bytes(64<<20, seed) // what newRunningRow's mirror serves
	q, err := queue.Open(rr.r.state)
	if err != nil {
		t.Fatal(err)
	}
	err = q.SetJob(rr.id, queue.InOrder(true)) // as braid queue in-order does
	q.Close()
	if err != nil {
		t.Fatal(err)
	}
	args := playerFor(t, filepath.Join(rr.r.tmp, "home"), "video/x-matroska", 1<<20)

	// The first MiB is a whole piece once the .part holds the first two.
	part := filepath.Join(rr.r.dest, "film.mkv.part")
	for end := time.Now().Add(time.Minute); ; time.Sleep(100 * time.Millisecond) {
		b := make([]byte, 2<<20)
		f, err := os.Open(part)
		if err == nil {
			_, err = f.ReadAt(b, 0)
			f.Close()
		}
		if err == nil && bytes.Equal(b, data[:len(b)]) {
			break
		}
		if time.Now().After(end) {
			t.Fatalf("the first 2 MiB of %s did not arrive within a minute\n%s", part, rr.out.String())
		}
	}

	rr.openRowMenu()
	rr.keep(t, "row-menu")
	rr.chooseItem(6)
	var got []string
	for end := time.Now().Add(30 * time.Second); got == nil; time.Sleep(100 * time.Millisecond) {
		if b, err := os.ReadFile(args); err == nil {
			got = strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
		} else if time.Now().After(end) {
			rr.keep(t, "not-opened")
			t.Fatalf("the player was not started within 30 s\n%s", rr.out.String())
		}
	}
	p := got[len(got)-1]
	if filepath.Base(p) != "film.mkv" {
		t.Errorf("the player was given %q, not a file named film.mkv", got)
	}
	a, errA := os.Stat(p)
	b, errB := os.Stat(part)
	if errA != nil || errB != nil || !os.SameFile(a, b) {
		t.Errorf("the player's %s is not the download's %s (%v, %v)", p, part, errA, errB)
	}
	head, err := os.ReadFile(args + ".head")
	if err != nil || !bytes.Equal(head, data[:1<<20]) {
		t.Errorf("the player read %d bytes that are not the file's first MiB (%v)", len(head), err)
	}
	t.Logf("the player was started with %q", got)
	// The window is killed when the test ends: quitting now would ask
	// about the download still running.
}

// playerFor makes a script in home the default application for MIME type
// typ, as a desktop keeps it: a .desktop file in the user's applications
// folder and the user's mimeapps.list (home's .local/share and .config,
// which windowEnv's HOME and XDG_CONFIG_HOME point at). The script writes
// its arguments, one a line, to the file playerFor returns, and the first
// n bytes of its last argument beside it, in that name plus ".head".
func playerFor(t *testing.T, home, typ string, n int) (args string) {
	t.Helper()
	apps := filepath.Join(home, ".local", "share", "applications")
	for _, d := range []string{apps, filepath.Join(home, ".config"), filepath.Join(home, "bin")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	args = filepath.Join(home, "player-args")
	script := filepath.Join(home, "bin", "player")
	body := "#!/bin/sh\nfor a in \"$@\"; do last=\"$a\"; printf '%s\\n' \"$a\"; done > '" + args + ".tmp'\n" +
		"head -c " + strconv.Itoa(n) + " \"$last\" > '" + args + ".head'\n" +
		"mv '" + args + ".tmp' '" + args + "'\n"
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	entry := "[Desktop Entry]\nType=Application\nName=Test Player\nExec=" + script + " %U\nMimeType=" + typ + ";\n"
	if err := os.WriteFile(filepath.Join(apps, "braidtest-player.desktop"), []byte(entry), 0o644); err != nil {
		t.Fatal(err)
	}
	list := "[Default Applications]\n" + typ + "=braidtest-player.desktop\n"
	if err := os.WriteFile(filepath.Join(home, ".config", "mimeapps.list"), []byte(list), 0o644); err != nil {
		t.Fatal(err)
	}
	return args
}
