//go:build !headless

package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"braid/engine/metalink"
	"braid/queue"
)

// windowRig is the set-up the tests of the real window share: braid
// built, an X display of the test's own (realWindow), and one user's
// folders in tmp: home, the runtime folder, the queue (state) and the
// download folder (dest), and the file the window writes the texts it
// shows to (dump, BRAID_DUMP_TEXTS).
type windowRig struct {
	tmp, bin, display string
	state, dest, dump string
}

// newWindowRig starts what realWindow starts and makes the user's
// folders; the download folder is tmp/destName. It skips as realWindow
// does.
func newWindowRig(t *testing.T, destName string) *windowRig {
	t.Helper()
	tmp, bin, display := realWindow(t)
	r := &windowRig{tmp: tmp, bin: bin, display: display,
		state: filepath.Join(tmp, "state"), dest: filepath.Join(tmp, destName), dump: filepath.Join(tmp, "texts.txt")}
	for _, d := range []string{filepath.Join(tmp, "home"), filepath.Join(tmp, "run"), r.dest} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	return r
}

// env is the window's environment (windowEnv) with its texts written to
// dump; extra comes last and wins.
func (r *windowRig) env(extra ...string) []string {
	return windowEnv(r.display, r.tmp, r.state, append([]string{"BRAID_DUMP_TEXTS=" + r.dump}, extra...)...)
}

// fillQueue opens the queue in state, has fill put the test's jobs and
// settings in it, and closes it for the window to open.
func (r *windowRig) fillQueue(t *testing.T, fill func(q *queue.Queue)) {
	t.Helper()
	q, err := queue.Open(r.state)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	fill(q)
}

// addRefused adds a job for a file name of size bytes to q, into dest,
// whose one mirror is port 9 on loopback: it refuses, so nothing
// downloads and the job keeps the state the test gives it.
func addRefused(t *testing.T, q *queue.Queue, dest, name string, size int64) int64 {
	t.Helper()
	link := "http://127.0.0.1:9/" + name
	doc := &metalink.Document{Version: 4, Files: []metalink.File{{Name: name, Size: size, URLs: []metalink.URL{{URL: link, Priority: 1}}}}}
	id, err := q.Add(queue.NewJob{Source: link, Dest: dest, Doc: doc})
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// needXwd skips the test where xwd, which reads the screen's pixels, is
// not installed, and returns its path.
func needXwd(t *testing.T) string {
	t.Helper()
	xwd, err := exec.LookPath("xwd")
	if err != nil {
		t.Skip("xwd is not installed (Debian: apt-get install x11-apps); this test reads the window's pixels with it")
	}
	return xwd
}

// quitWindow quits the real window as a user does: Ctrl+Q, then Enter
// (Quit) in the dialog that asks first while jobs run or torrents seed.
// It fails the test when the window is still open a minute later. (Tests
// that waited for the window's end without this sat out their whole
// timeout, minutes each, behind the dialog.)
func quitWindow(ctx context.Context, t *testing.T, xdo func(...string) string, env []string, wid string, win *exec.Cmd, out fmt.Stringer) {
	t.Helper()
	exited := make(chan error, 1)
	go func() { exited <- win.Wait() }()
	xdo("windowfocus", "--sync", wid)
	xdo("key", "ctrl+q")
	for end := time.Now().Add(time.Minute); ; {
		select {
		case <-exited:
			return
		case <-time.After(2 * time.Second):
		}
		if time.Now().After(end) {
			windowShot(ctx, t, env, "quit-stuck")
			t.Fatalf("the window did not quit after Ctrl+Q and Enter\n%s", out.String())
		}
		xdo("key", "Return") // Quit, in the dialog that asks
	}
}
