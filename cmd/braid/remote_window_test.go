//go:build !headless

package main

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"braid/engine/mirrortest"
	"braid/internal/testkit"
)

// `braid --remote URL LINK` opens the window on an aria2c's downloads,
// and on a braid queue run's, with the secret from BRAID_REMOTE_SECRET:
// the link, handed to the daemon, shows as a finished row with its size.
// Stopped, the daemon is a sentence in the window; started again, the
// window reads it again. The secret is nowhere in what the window showed
// or printed.
func TestRemoteWindow(t *testing.T) {
	for _, tc := range []struct {
		name  string
		start func(*testing.T) *remoteDaemon
	}{{"aria2c", aria2cDaemon}, {"braid", braidDaemon}} {
		t.Run(tc.name, func(t *testing.T) { remoteWindow(t, tc.name, tc.start(t)) })
	}
}

func remoteWindow(t *testing.T, name string, d *remoteDaemon) {
	r := newWindowRig(t, "dest")
	xdotool := needXdotool(t)
	m := mirrortest.New(t, testkit.Data(2<<20), mirrortest.Path("/remote-done.bin"))
	slow := mirrortest.New(t, testkit.Data(32<<20), mirrortest.Path("/remote-slow.bin"), mirrortest.Rate(256<<10))
	env := r.env("BRAID_REMOTE_SECRET="+d.secret, "BRAID_AUTOADD=1")
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	var out syncBuffer
	win := exec.CommandContext(ctx, r.bin, "--remote", d.endpoint, m.URL(), slow.URL())
	win.Env = env
	win.Stdout, win.Stderr = &out, &out
	if err := win.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = win.Process.Kill()
		_ = win.Wait()
	})
	xdo := xdoRunner(ctx, t, xdotool, env, &out)
	if ids := strings.Fields(xdo("search", "--sync", "--name", "^Braid — http://127.0.0.1")); len(ids) == 0 {
		t.Fatalf("the window never showed\n%s", out.String())
	}
	texts := waitWindowText(ctx, t, env, r.dump, &out, time.Minute, "remote-"+name+"-", "finished row", "remote-done.bin", "2.0 MiB", "1 done", "1 active")
	windowShot(ctx, t, env, "remote-"+name+"-done")
	// The slow one, added last, is the one selected: Ctrl+P pauses it on
	// the daemon, Ctrl+R resumes it.
	wids := strings.Fields(xdo("search", "--name", "^Braid — http://127.0.0.1"))
	xdo("windowfocus", "--sync", wids[0])
	xdo("key", "ctrl+p")
	waitWindowText(ctx, t, env, r.dump, &out, 30*time.Second, "remote-"+name+"-", "paused", "0 active", "1 paused")
	windowShot(ctx, t, env, "remote-"+name+"-paused")
	xdo("key", "ctrl+r")
	waitWindowText(ctx, t, env, r.dump, &out, 30*time.Second, "remote-"+name+"-", "resumed", "1 active")
	if strings.Contains(texts+out.String(), d.secret) {
		t.Error("the secret shows in the window or its output")
	}

	// Gone, the daemon's downloads keep their rows, each saying nothing
	// is known of it: no speed, no time left beside the sentence.
	d.stop()
	gone := waitWindowText(ctx, t, env, r.dump, &out, 30*time.Second, "remote-"+name+"-", "daemon gone",
		"Cannot reach the downloads at "+d.endpoint+": nothing answers there.", "remote-slow.bin", "Unknown: not connected")
	windowShot(ctx, t, env, "remote-"+name+"-gone")
	if strings.Contains(gone, "KiB/s") || strings.Contains(gone, "MiB/s") {
		t.Errorf("while the daemon is gone the window still shows a speed:\n%s", gone)
	}
	d.start()
	// The sentence and the unknown rows go once the window reads the
	// daemon again.
	for end := time.Now().Add(30 * time.Second); ; time.Sleep(250 * time.Millisecond) {
		raw, _ := os.ReadFile(r.dump)
		b := string(raw)
		// aria2c keeps no session here: its list is empty then; a
		// braid queue run's comes back with its states.
		if !strings.Contains(b, "Cannot reach the downloads") && !strings.Contains(b, "not connected") &&
			(name == "aria2c" || strings.Contains(b, "remote-slow.bin")) {
			break
		}
		if time.Now().After(end) {
			windowShot(ctx, t, env, "remote-"+name+"-back")
			t.Fatalf("the window still says the daemon is gone 30 s after it came back:\n%s", b)
		}
	}
	windowShot(ctx, t, env, "remote-"+name+"-back")
}
