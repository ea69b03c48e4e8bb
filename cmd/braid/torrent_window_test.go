package main

import (
	"bytes"
	"context"
	"fmt"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"braid/engine/mirrortest"
	"braid/engine/torrent/torrenttest"
	"braid/queue"
)

// TestTorrentWindowScreenshot starts the real binary in a real window on
// its own Xvfb display, on a magnet link whose metadata and pieces come
// from a loopback seeder (x.pe), and checks the screenshot it takes of the
// torrent's details: peers, ratio and the piece map coloured by source. BRAID_UPDATE_SCREENSHOT=1 writes
// it to docs/torrent_details.png, the one the README shows.
func TestTorrentWindowScreenshot(t *testing.T) {
	tmp, bin, display := realWindow(t)

	const name = "braid-demo-1.0-amd64.iso"
	data := mirrortest.Bytes(32<<20, 35)
	src := filepath.Join(tmp, "seed")
	mi := torrenttest.Make(t, src, name, 256<<10, []torrenttest.File{{Data: data}})
	peer := torrenttest.Seed(t, src, mi)
	magnet := fmt.Sprintf("magnet:?xt=urn:btih:%s&dn=%s&x.pe=%s", mi.HashInfoBytes().HexString(), name, peer)

	// The queue's settings: peers only from the link, and a speed limit
	// that keeps the download under way long enough to be seen.
	state := filepath.Join(tmp, "state")
	q, err := queue.Open(state)
	if err != nil {
		t.Fatal(err)
	}
	err = q.SetTorrentSettings(queue.TorrentSettings{SeedRatio: 1, Discovery: false})
	if err == nil {
		err = q.SetSetting("speed_limit", fmt.Sprint(2<<20))
	}
	q.Close()
	if err != nil {
		t.Fatal(err)
	}

	home := filepath.Join(tmp, "home")
	runtimeDir := filepath.Join(tmp, "run")
	for _, d := range []string{home, runtimeDir} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	shot := filepath.Join(tmp, "torrent.png")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, magnet) // killed with SIGKILL if it hangs
	cmd.Env = append(os.Environ(),
		"DISPLAY="+display,
		"HOME="+home,
		"XDG_CONFIG_HOME="+filepath.Join(home, ".config"),
		"XDG_RUNTIME_DIR="+runtimeDir,
		"DBUS_SESSION_BUS_ADDRESS=",
		"BRAID_STATE="+state,
		"FYNE_THEME=light",
		"FYNE_SCALE=1",
		"BRAID_SCREENSHOT="+shot,
		"BRAID_SCREENSHOT_AFTER=4s",
		"BRAID_SCREENSHOT_TIMEOUT=2m",
	)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("braid: %v\n%s", err, out.String())
	}
	file, err := os.Open(shot)
	if err != nil {
		t.Fatalf("no screenshot: %v\n%s", err, out.String())
	}
	img, err := png.Decode(file)
	file.Close()
	if err != nil {
		t.Fatalf("screenshot does not decode: %v", err)
	}
	if n := colours(img); n < 64 {
		t.Errorf("screenshot has %d colours: blank or nearly", n)
	}
	if os.Getenv("BRAID_UPDATE_SCREENSHOT") == "1" {
		b, err := os.ReadFile(shot)
		if err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join("..", "..", "docs", "torrent_details.png")
		if err := os.WriteFile(dst, b, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s", dst)
	}
}
