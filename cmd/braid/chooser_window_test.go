//go:build !headless

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"braid/engine/metalink"
)

// TestWindowFileChooserTakesATypedPath starts the real binary on its own
// Xvfb display, opens File → Open… with the mouse and gets the system's
// file dialog (zenity, a GTK window of its own), types the path of a
// .meta4 into it and presses Enter: the picker shows the document's file
// and Enter queues it. Opened again, the dialog starts in the folder the
// last file came from.
func TestWindowFileChooserTakesATypedPath(t *testing.T) {
	t.Parallel()
	xdotool := needXdotool(t)
	if _, err := exec.LookPath("zenity"); err != nil {
		t.Skip("zenity is not installed (Debian: apt-get install zenity, or make setup); this test types a path into the system's file dialog")
	}
	tmp, bin, display := realWindow(t)
	state := filepath.Join(tmp, "state")
	dump := filepath.Join(tmp, "texts.txt")
	docs := filepath.Join(tmp, "my docs")
	for _, d := range []string{filepath.Join(tmp, "home"), filepath.Join(tmp, "run"), docs} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	// A document whose one mirror is a closed port: the job it becomes
	// waits, which is all this test needs of it.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + l.Addr().String()
	l.Close()
	meta := writeMetalink(t, docs, "typed-path.meta4", bytes.Repeat([]byte("braid"), 4000), "typed-file.iso", 1<<14,
		[]metalink.URL{{URL: closed + "/typed-file.iso", Priority: 1}})

	env := windowEnv(display, tmp, state, "BRAID_DUMP_TEXTS="+dump)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	var out syncBuffer
	startWindow(ctx, t, bin, env, &out)
	xdo := xdoRunner(ctx, t, xdotool, env, &out)
	ids := strings.Fields(xdo("search", "--sync", "--name", "^Braid$"))
	if len(ids) == 0 {
		t.Fatalf("the window never showed\n%s", out.String())
	}
	wid := ids[0]
	waitText := func(what string, want ...string) string {
		t.Helper()
		return waitWindowText(ctx, t, env, dump, &out, 60*time.Second, "chooser-", what, want...)
	}
	waitText("start", "Add URL", "Open")
	windowShot(ctx, t, env, "chooser-start")

	// dialog opens File → Open… with the mouse (Fyne draws the menu bar
	// in the window: File is its first entry, Open… its menu's second)
	// and returns the system dialog's window and the folder it started in.
	dialog := func() (string, string) {
		t.Helper()
		xdo("windowfocus", "--sync", wid)
		xdo("mousemove", "--window", wid, "--sync", "20", "12")
		xdo("click", "1")
		time.Sleep(400 * time.Millisecond)
		windowShot(ctx, t, env, "chooser-menu")
		xdo("mousemove", "--window", wid, "--sync", "40", "84")
		xdo("click", "1")
		for end := time.Now().Add(30 * time.Second); time.Now().Before(end); time.Sleep(200 * time.Millisecond) {
			cmd := exec.CommandContext(ctx, xdotool, "search", "--onlyvisible", "--name", "^Open a file$")
			cmd.Env = env
			b, _ := cmd.Output()
			if found := strings.Fields(string(b)); len(found) > 0 {
				time.Sleep(time.Second) // GTK maps the dialog before it takes keys
				windowShot(ctx, t, env, "chooser-dialog")
				return found[0], zenityFilename(t, display)
			}
		}
		windowShot(ctx, t, env, "chooser-no-dialog")
		t.Fatalf("no file dialog showed\n%s", out.String())
		return "", ""
	}
	dlg, start := dialog()
	if start != "" {
		t.Errorf("the first dialog starts in %q, want the dialog's own start", start)
	}
	// GTK's file chooser: Ctrl+L opens the location entry; the path is
	// typed as a user would and Enter takes it. A GTK that is still
	// settling may drop the first keys: while the dialog stays open, the
	// entry's text is selected (Ctrl+A) and typed again.
	shown := func() bool {
		cmd := exec.CommandContext(ctx, xdotool, "search", "--onlyvisible", "--name", "^Open a file$")
		cmd.Env = env
		b, _ := cmd.Output()
		return len(strings.Fields(string(b))) > 0
	}
	for try := 1; shown(); try++ {
		if try > 3 {
			windowShot(ctx, t, env, "chooser-still-open")
			t.Fatalf("the file dialog took no typed path in three tries\n%s", out.String())
		}
		xdo("windowfocus", "--sync", dlg)
		xdo("key", "ctrl+l")
		time.Sleep(300 * time.Millisecond)
		xdo("key", "ctrl+a")
		xdo("type", "--delay", "20", meta)
		time.Sleep(300 * time.Millisecond)
		windowShot(ctx, t, env, "chooser-typed")
		xdo("key", "Return")
		for end := time.Now().Add(5 * time.Second); shown() && time.Now().Before(end); {
			time.Sleep(200 * time.Millisecond)
		}
	}

	// The picker shows the document's file (the screen changes only when
	// the window draws anew, so the test does not wait on its texts);
	// Enter queues it.
	var js []queueJob
	for end, next := time.Now().Add(40*time.Second), time.Now().Add(2*time.Second); ; time.Sleep(300 * time.Millisecond) {
		if time.Now().After(next) {
			windowShot(ctx, t, env, "chooser-picker")
			xdo("windowfocus", "--sync", wid)
			xdo("key", "Return")
			next = time.Now().Add(8 * time.Second)
		}
		cmd := exec.CommandContext(ctx, bin, "queue", "--state", state, "list", "--json")
		cmd.Env = env
		b, err := cmd.Output()
		if err == nil && json.Unmarshal(b, &js) == nil && len(js) > 0 {
			break
		}
		if time.Now().After(end) {
			t.Fatalf("the typed file was not queued: %s %v\n%s", b, err, out.String())
		}
	}
	if len(js) != 1 || js[0].Name != "typed-file.iso" {
		t.Fatalf("queued %+v, want typed-file.iso alone", js)
	}

	// Opened again, the dialog starts where the last file was chosen.
	dlg, start = dialog()
	if start != docs+string(filepath.Separator) {
		t.Errorf("the second dialog starts in %q, want %q", start, docs+"/")
	}
	xdo("windowfocus", "--sync", dlg)
	xdo("key", "Escape")
}

// zenityFilename is the folder the zenity dialog running on display was asked to
// start in (its --filename argument), "" when it was given none.
func zenityFilename(t *testing.T, display string) string {
	t.Helper()
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		args := strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
		if len(args) == 0 || filepath.Base(args[0]) != "zenity" || !containsArg(args, "--file-selection") {
			continue
		}
		// Other tests may run dialogs on their own displays.
		env, err := os.ReadFile(filepath.Join(filepath.Dir(p), "environ"))
		if err != nil || !containsArg(strings.Split(string(env), "\x00"), "DISPLAY="+display) {
			continue
		}
		for i, a := range args {
			if a == "--filename" && i+1 < len(args) {
				return args[i+1]
			}
		}
		return ""
	}
	t.Fatal("no zenity process")
	return ""
}

func containsArg(args []string, a string) bool {
	for _, x := range args {
		if x == a {
			return true
		}
	}
	return false
}
