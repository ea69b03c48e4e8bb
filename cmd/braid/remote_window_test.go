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
// with the secret from BRAID_REMOTE_SECRET: the link, handed to aria2c,
// shows as a finished row with its size, beside a download aria2c was
// given before. Stopped, the daemon is a sentence in the window; started
// again, the window lists its downloads again. The secret is nowhere in
// what the window showed or printed.
func TestRemoteWindowOnAria2c(t *testing.T) {
	d := aria2cDaemon(t)
	r := newWindowRig(t, "dest")
	xdotool := needXdotool(t)
	m := mirrortest.New(t, testkit.Data(2<<20), mirrortest.Path("/remote-done.bin"))
	env := r.env("BRAID_REMOTE_SECRET="+d.secret, "BRAID_AUTOADD=1")
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	var out syncBuffer
	win := exec.CommandContext(ctx, r.bin, "--remote", d.endpoint, m.URL())
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
	texts := waitWindowText(ctx, t, env, r.dump, &out, time.Minute, "remote-", "finished row", "remote-done.bin", "2.0 MiB")
	windowShot(ctx, t, env, "remote-done")
	t.Logf("the window shows:\n%s", texts)
	if strings.Contains(texts+out.String(), d.secret) {
		t.Error("the secret shows in the window or its output")
	}

	d.stop()
	waitWindowText(ctx, t, env, r.dump, &out, 30*time.Second, "remote-", "daemon gone",
		"Cannot reach the downloads at "+d.endpoint+": nothing answers there.")
	windowShot(ctx, t, env, "remote-gone")
	d.start()
	// aria2c keeps no session here: its list is empty again, and the
	// sentence goes once the window reads it.
	for end := time.Now().Add(30 * time.Second); ; time.Sleep(250 * time.Millisecond) {
		raw, _ := os.ReadFile(r.dump)
		b := string(raw)
		if !strings.Contains(b, "Cannot reach the downloads") {
			break
		}
		if time.Now().After(end) {
			windowShot(ctx, t, env, "remote-back")
			t.Fatalf("the window still says the daemon is gone 30 s after it came back:\n%s", b)
		}
	}
	windowShot(ctx, t, env, "remote-back")
}
