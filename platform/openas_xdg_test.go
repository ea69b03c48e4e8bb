//go:build unix && !darwin

package platform

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// fakeDesktop makes a desktop of its own in a temporary HOME, through
// the XDG variables: a "player" (a script that writes its arguments, one
// a line, to the file it returns, and copies the first kib KiB of its
// last argument beside it) is the default application for Matroska
// video in the user's mimeapps.list, as a desktop's "Open with" keeps it.
// It skips without xdg-mime (Debian: xdg-utils).
func fakeDesktop(t *testing.T, execLine string, kib int) (args string) {
	t.Helper()
	if _, err := exec.LookPath("xdg-mime"); err != nil {
		t.Skip("xdg-mime is not installed (Debian: apt-get install xdg-utils)")
	}
	home := t.TempDir()
	for _, k := range []string{"XDG_CURRENT_DESKTOP", "DESKTOP_SESSION", "KDE_FULL_SESSION", "GNOME_DESKTOP_SESSION_ID", "XDG_MENU_PREFIX"} {
		t.Setenv(k, "")
	}
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, "config"))
	t.Setenv("XDG_DATA_HOME", filepath.Join(home, "share"))
	t.Setenv("XDG_DATA_DIRS", filepath.Join(home, "system"))
	t.Setenv("XDG_RUNTIME_DIR", filepath.Join(home, "run"))
	apps := filepath.Join(home, "share", "applications")
	for _, d := range []string{apps, filepath.Join(home, "config"), filepath.Join(home, "run"), filepath.Join(home, "my player")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	args = filepath.Join(home, "args")
	script := filepath.Join(home, "my player", "play")
	body := "#!/bin/sh\nfor a in \"$@\"; do last=\"$a\"; printf '%s\\n' \"$a\"; done > '" + args + ".tmp'\n" +
		"head -c " + strconv.Itoa(kib*1024) + " \"$last\" > '" + args + ".head' 2>/dev/null\n" +
		"mv '" + args + ".tmp' '" + args + "'\n"
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	entry := "[Desktop Entry]\nType=Application\nName=Test Player\nExec=" + strings.ReplaceAll(execLine, "PLAYER", `"`+script+`"`) + "\nMimeType=video/x-matroska;\n\n[Desktop Action other]\nExec=false\n"
	if err := os.WriteFile(filepath.Join(apps, "braidtest-player.desktop"), []byte(entry), 0o644); err != nil {
		t.Fatal(err)
	}
	list := "[Default Applications]\nvideo/x-matroska=braidtest-player.desktop\n"
	if err := os.WriteFile(filepath.Join(home, "config", "mimeapps.list"), []byte(list), 0o644); err != nil {
		t.Fatal(err)
	}
	return args
}

// waitArgs waits for the player's arguments.
func waitArgs(t *testing.T, path string) []string {
	t.Helper()
	for end := time.Now().Add(20 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if b, err := os.ReadFile(path); err == nil {
			return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
		}
	}
	t.Fatal("the player was not started within 20 s")
	return nil
}

// OpenAs opens a .part with the desktop's default application for its
// final name's type, found through real xdg-mime resolution: the player
// gets a path named as the final file that reads the .part's bytes, and
// its Exec line's quoting and field codes are honoured. A URL goes to
// the same player, as is.
func TestOpenAsFinalNamesApplication(t *testing.T) {
	args := fakeDesktop(t, `PLAYER --title "%c here" --flag=100%% %U`, 64)
	dir := t.TempDir()
	part := filepath.Join(dir, "film.mkv.part")
	data := bytes.Repeat([]byte("braid in order "), 10000)
	if err := os.WriteFile(part, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := OpenAs(part, "film.mkv"); err != nil {
		t.Fatal(err)
	}
	got := waitArgs(t, args)
	if len(got) != 4 || got[0] != "--title" || got[1] != "Test Player here" || got[2] != "--flag=100%" {
		t.Fatalf("the player was given %q", got)
	}
	p := got[3]
	if filepath.Base(p) != "film.mkv" {
		t.Errorf("the player was given %s, not a file named film.mkv", p)
	}
	a, errA := os.Stat(p)
	b, errB := os.Stat(part)
	if errA != nil || errB != nil || !os.SameFile(a, b) {
		t.Errorf("%s is not the .part (%v, %v)", p, errA, errB)
	}
	head, err := os.ReadFile(args + ".head")
	if err != nil || !bytes.Equal(head, data[:64<<10]) {
		t.Errorf("the player read %d bytes that are not the .part's first 64 KiB (%v)", len(head), err)
	}
	if fi, err := os.Stat(filepath.Dir(p)); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("the link's folder is not private: %v %v", fi.Mode(), err)
	}

	os.Remove(args)
	const u = "http://127.0.0.1:1234/TOKEN/film.mkv"
	if err := OpenAs(u, "film.mkv"); err != nil {
		t.Fatal(err)
	}
	if got := waitArgs(t, args); !slices.Equal(got, []string{"--title", "Test Player here", "--flag=100%", u}) {
		t.Errorf("for a URL the player was given %q", got)
	}
}

// A type with no application, and a name of no known type, say so for
// a URL; the xdg-open fallback
// of a file is not tried here (it would start whatever the machine has).
func TestOpenAsNoApplication(t *testing.T) {
	fakeDesktop(t, "PLAYER %f", 1)
	for _, name := range []string{"notes.pdf", "notes.xyzzy"} {
		err := OpenAs("http://127.0.0.1:1/T/"+name, name)
		if err == nil {
			t.Fatalf("a URL of %s, which nothing opens, was opened", name)
		}
		t.Log(err)
	}
}

// The Exec line of a .desktop file is read as the Desktop Entry
// Specification says.
func TestDesktopExecLine(t *testing.T) {
	app := &desktopApp{path: "/a/x.desktop", name: "X", icon: "xi"}
	for _, c := range []struct {
		exec string
		want []string
	}{
		{`mpv --player-operation-mode=pseudo-gui -- %U`, []string{"mpv", "--player-operation-mode=pseudo-gui", "--", "T"}},
		{`vlc --started-from-file %U`, []string{"vlc", "--started-from-file", "T"}},
		{`"/opt/my app/bin" %i --name=%c %k %f`, []string{"/opt/my app/bin", "--icon", "xi", "--name=X", "/a/x.desktop", "T"}},
		{`sh -c "echo \\"a\\\\$b\\" %%" %d`, []string{"sh", "-c", `echo "a\$b" %`, "T"}},
		{`viewer`, []string{"viewer", "T"}},
		{`totem\s%U`, []string{"totem", "T"}},
	} {
		app.exec = c.exec
		got, err := app.command("T")
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("Exec=%s: %q (%v), want %q", c.exec, got, err, c.want)
		}
	}
	app.exec = `"unclosed %f`
	if _, err := app.command("T"); err == nil {
		t.Error("an unclosed quote was taken")
	}
	app.exec, app.terminal = "vim %f", true
	if _, err := app.command("T"); err == nil {
		t.Error("a terminal application was taken")
	}
}
