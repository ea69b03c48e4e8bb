//go:build !headless

package main

import (
	"context"
	"errors"
	"fmt"
	"image"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"braid/engine/metalink"
	"braid/engine/mirrortest"
	"braid/queue"
)

// runningSize is the size of truthsQueue's running download.
const runningSize = 64 << 20

// truthsQueue fills the queue of r: done jobs named done-N.bin, then
// (with mismatch) one that failed because its file did not match its
// hash, then (with running) one that downloads from a slow mirror, last
// in the queue.
func truthsQueue(t *testing.T, r *windowRig, done int, mismatch bool, running string) {
	t.Helper()
	q, err := queue.Open(r.state)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	add := func(name, url string, size int64) int64 {
		t.Helper()
		doc := &metalink.Document{Version: 4, Files: []metalink.File{{Name: name, Size: size, URLs: []metalink.URL{{URL: url, Priority: 1}}}}}
		id, err := q.Add(queue.NewJob{Source: url, Dest: r.dest, Doc: doc})
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	for i := range done {
		name := fmt.Sprintf("done-%d.bin", i+1)
		id := add(name, "http://127.0.0.1:9/"+name, 1<<20)
		if err := os.WriteFile(filepath.Join(r.dest, name), make([]byte, 1<<20), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := q.SetFile(id, name, queue.VerifiedBy("")); err != nil {
			t.Fatal(err)
		}
		if _, err := q.Finish(id); err != nil {
			t.Fatal(err)
		}
	}
	if mismatch {
		id := add("bad.bin", "http://127.0.0.1:9/bad.bin", 1<<20)
		if err := q.SetFile(id, "bad.bin", queue.Mismatched); err != nil {
			t.Fatal(err)
		}
		if err := q.Fail(id, errors.New("bad.bin: file does not match its hash (sha-256 mismatch)")); err != nil {
			t.Fatal(err)
		}
	}
	if running != "" {
		add("running.bin", running, runningSize)
	}
}

// TestWindowCountsEachJobOnce: the status bar counts a job that failed its
// checksum once, as the checksum mismatch its row shows, not as a failure
// as well ("2 done · 1 failed · 1 checksum mismatch" for three jobs).
func TestWindowCountsEachJobOnce(t *testing.T) {
	t.Parallel()
	r := newWindowRig(t, "downloads")
	truthsQueue(t, r, 2, true, "")
	env := r.env()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var out syncBuffer
	startWindow(ctx, t, r.bin, env, &out)
	texts := waitWindowText(ctx, t, env, r.dump, &out, time.Minute, "counts-", "the status bar",
		"0 active  ·  0 queued  ·  2 done  ·  1 checksum mismatch")
	windowShot(ctx, t, env, "counts-status-bar")
	for _, line := range strings.Split(texts, "\n") {
		if strings.Contains(line, "0 queued") && strings.Contains(line, "failed") {
			t.Errorf("the status bar counts the mismatch as a failure too: %q", line)
		}
	}
}

// TestWindowShowsRunningJob: after a restart with many finished rows
// above it, the download that runs is scrolled into view: its row's
// progress bar (filled in the primary colour up to where its track
// begins) is on the screen.
func TestWindowShowsRunningJob(t *testing.T) {
	t.Parallel()
	xwd, err := exec.LookPath("xwd")
	if err != nil {
		t.Skip("xwd is not installed (Debian: apt-get install x11-apps); this test reads the real window's pixels with it")
	}
	r := newWindowRig(t, "downloads")
	m := mirrortest.New(t, mirrortest.Bytes(runningSize, 5), mirrortest.Rate(512<<10)) // runs for minutes
	truthsQueue(t, r, 30, false, m.URL())
	env := r.env()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var out syncBuffer
	startWindow(ctx, t, r.bin, env, &out)
	waitWindowText(ctx, t, env, r.dump, &out, time.Minute, "inview-", "the download running", "1 active", "30 done")

	shot := func() image.Image {
		cmd := exec.CommandContext(ctx, xwd, "-root", "-silent")
		cmd.Env = env
		b, err := cmd.Output()
		if err != nil {
			t.Fatalf("xwd: %v", err)
		}
		img, err := decodeXWD(b)
		if err != nil {
			t.Fatal(err)
		}
		return img
	}
	// A running row: a bar's track whose left end meets the primary
	// colour of its fill. Rows of finished jobs are filled to the end
	// (no track), in another colour.
	runningRow := func(img image.Image) (bar, bool) {
		for _, b := range findBars(img, barTrack) {
			for x := b.x0 - 1; x >= b.x0-3 && x >= 0; x-- {
				if sameColor(img.At(x, b.y), dropBlue) {
					return b, true
				}
			}
		}
		return bar{}, false
	}
	var img image.Image
	for end := time.Now().Add(30 * time.Second); time.Now().Before(end); time.Sleep(500 * time.Millisecond) {
		img = shot()
		if b, ok := runningRow(img); ok {
			t.Logf("the running row is on the screen at y=%d", b.y)
			windowShot(ctx, t, env, "inview-running-row")
			return
		}
	}
	windowShot(ctx, t, env, "inview-no-running-row")
	t.Fatalf("the running download's row is not on the screen (%d rows with a track show)\n%s", len(findBars(img, barTrack)), out.String())
}
