//go:build !headless

package main

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"braid/engine/mirrortest"
	"braid/queue"
	"braid/ui"
)

// TestRemoteAria2Screenshot: the window on an aria2c's downloads, chosen
// in Settings → Downloads run on and listed under Computers, takes a
// picture of itself with a download under way beside one finished, one
// paused and one whose link the mirror does not have. With
// BRAID_UPDATE_SCREENSHOT=1 it becomes docs/remote_aria2.png, the one the
// README shows.
func TestRemoteAria2Screenshot(t *testing.T) {
	tmp, bin, display := realWindow(t)
	d := aria2cDaemon(t)
	rb := remoteBackend(t, d)
	data := mirrortest.Bytes(24<<20, 41)
	iso := mirrortest.New(t, data, mirrortest.Rate(700<<10), mirrortest.Path("/debian/demo-amd64.iso"))
	arm := mirrortest.New(t, data, mirrortest.Rate(1<<20), mirrortest.Path("/pub/demo-arm64.iso"))
	notes := mirrortest.New(t, data[:512<<10], mirrortest.Path("/notes.pdf"))

	done := addLink(t, rb, notes.URL())
	waitDaemon(t, 30*time.Second, "the notes done on the aria2c", func() bool {
		j, _ := findJob(t, rb, done)
		return j.State == ui.Done
	})
	paused := addLink(t, rb, arm.URL())
	waitDaemon(t, 30*time.Second, "the arm64 image under way", func() bool {
		j, _ := findJob(t, rb, paused)
		return j.Done >= 3<<20
	})
	if err := rb.Pause(paused); err != nil {
		t.Fatal(err)
	}
	addLink(t, rb, notes.URL()+".sig") // the mirror does not have it
	running := addLink(t, rb, iso.URL())

	state := filepath.Join(tmp, "state")
	q, err := queue.Open(state)
	if err != nil {
		t.Fatal(err)
	}
	if err := q.UpdateSettings(func(st *queue.Settings) {
		st.Connections, st.RunOn = []queue.Connection{{Name: "nas", URL: d.endpoint, Secret: true}}, d.endpoint
	}); err != nil {
		t.Fatal(err)
	}
	if err := q.Close(); err != nil {
		t.Fatal(err)
	}
	t.Setenv(remoteSecretEnv, d.secret) // no keyring here
	img := windowScreenshot(t, tmp, bin, display, "4s", state)
	if b := img.Bounds(); b.Dx() != 1100 || b.Dy() != 720 {
		t.Errorf("screenshot is %v, want the window's 1100×720", b)
	}
	if j, ok := findJob(t, rb, running); !ok || j.Done == 0 {
		t.Errorf("the amd64 image on the aria2c: %+v, want it under way", j)
	}
	if _, err := os.Stat(filepath.Join(tmp, "screenshot.png")); err != nil {
		t.Fatal(err)
	}
	keepScreenshot(t, tmp, "remote_aria2.png")
}
