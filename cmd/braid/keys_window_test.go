//go:build !headless

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"braid/engine/metalink"
	"braid/engine/mirrortest"
	"braid/queue"
)

// TestWindowPickerKeyboard starts the real binary on its own Xvfb display
// with a metalink, so the picker opens, and presses Enter through the X
// server (xdotool's XTEST, as a keyboard would): the download must start
// (not be added paused) and finish from the loopback mirror. Nothing is
// clicked.
func TestWindowPickerKeyboard(t *testing.T) {
	t.Parallel()
	xdotool := needXdotool(t)
	tmp, bin, display := realWindow(t)

	data := make([]byte, 3<<20)
	r := rand.New(rand.NewPCG(5, 6))
	for i := range data {
		data[i] = byte(r.Uint32())
	}
	m := mirrortest.New(t, data, mirrortest.Addr("127.0.0.6"), mirrortest.Path("/keys.bin"))
	meta := writeMetalink(t, tmp, "keys.meta4", data, "keys.bin", 256<<10, []metalink.URL{{URL: m.URL(), Priority: 1}})

	home := filepath.Join(tmp, "home")
	dest := filepath.Join(tmp, "downloads")
	state := filepath.Join(tmp, "state")
	for _, d := range []string{home, dest, filepath.Join(tmp, "run")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	env := append(os.Environ(),
		"DISPLAY="+display,
		"HOME="+home,
		"XDG_CONFIG_HOME="+filepath.Join(home, ".config"),
		"XDG_RUNTIME_DIR="+filepath.Join(tmp, "run"),
		"DBUS_SESSION_BUS_ADDRESS=",
		"BRAID_STATE="+state,
		"FYNE_SCALE=1",
	)
	// The download folder is the one the picker offers: set it first.
	q, err := queue.Open(state)
	if err != nil {
		t.Fatal(err)
	}
	err = q.UpdateSettings(func(s *queue.Settings) { s.DownloadDir = dest })
	q.Close()
	if err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	win := exec.CommandContext(ctx, bin, meta)
	win.Env = env
	var out bytes.Buffer
	win.Stdout, win.Stderr = &out, &out
	if err := win.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = win.Process.Kill()
		_ = win.Wait()
	}()

	xdo := func(args ...string) {
		cmd := exec.CommandContext(ctx, xdotool, args...)
		cmd.Env = env
		_ = cmd.Run() // a key sent before the window maps is simply lost
	}
	jobs := func() []queueJob {
		cmd := exec.CommandContext(ctx, bin, "queue", "--state", state, "list", "--json")
		cmd.Env = env
		b, err := cmd.Output()
		if err != nil {
			return nil
		}
		var js []queueJob
		_ = json.Unmarshal(b, &js)
		return js
	}
	// The window maps after the binary owns the queue; only then may
	// this test open the queue too (the first opener runs it).
	wait := exec.CommandContext(ctx, xdotool, "search", "--sync", "--name", "^Braid$")
	wait.Env = env
	if b, err := wait.CombinedOutput(); err != nil {
		t.Fatalf("the window never showed: %v %s\n%s", err, b, out.String())
	}
	// Press Enter until the picker has taken it: before the picker is
	// up, Enter does nothing.
	deadline := time.Now().Add(2 * time.Minute)
	for len(jobs()) == 0 {
		if time.Now().After(deadline) || ctx.Err() != nil {
			t.Fatalf("Enter never started the download\n%s", out.String())
		}
		xdo("search", "--name", "^Braid$", "windowfocus")
		xdo("mousemove", "550", "360")
		xdo("key", "Return")
		time.Sleep(500 * time.Millisecond)
	}
	for {
		js := jobs()
		if len(js) != 1 {
			t.Fatalf("%d jobs after one Enter: %+v", len(js), js)
		}
		if js[0].State == "paused" {
			t.Fatalf("Enter added the download paused; Start is the default")
		}
		if js[0].State == "done" {
			break
		}
		if js[0].State == "failed" || time.Now().After(deadline) {
			t.Fatalf("job %+v\n%s", js[0], out.String())
		}
		time.Sleep(200 * time.Millisecond)
	}
	got, err := os.ReadFile(filepath.Join(dest, "keys.bin"))
	if err != nil || !bytes.Equal(got, data) {
		t.Errorf("downloaded file: %d bytes, %v", len(got), err)
	}
	if m.BytesServed() == 0 {
		t.Error("the mirror sent nothing")
	}
}
