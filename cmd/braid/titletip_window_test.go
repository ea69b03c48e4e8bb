//go:build !headless

package main

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"braid/queue"
)

// TestWindowTitleTooltip runs the real window over a queue with a job
// whose file name is too long for the details' title, selects it (a
// click on its row) and rests the mouse on the title, cut short with an
// ellipsis: the whole name shows once more, in the tooltip. Moved away,
// the tooltip goes.
func TestWindowTitleTooltip(t *testing.T) {
	t.Parallel()
	xdotool := needXdotool(t)
	r := newWindowRig(t, "dest")
	name := strings.Repeat("very-long-dataset-part-", 6) + "2026-11-29.tar.zst"
	r.fillQueue(t, func(q *queue.Queue) {
		// Refused: nothing downloads, and paused, it stays as it is.
		if err := q.Pause(addRefused(t, q, r.dest, name, 5<<20), ""); err != nil {
			t.Fatal(err)
		}
	})

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	env, dump := r.env(), r.dump
	var out syncBuffer
	startWindow(ctx, t, r.bin, env, &out)
	xdo := xdoRunner(ctx, t, xdotool, env, &out)
	wid := strings.Fields(xdo("search", "--sync", "--name", "^Braid$"))[0]
	waitWindowText(ctx, t, env, dump, &out, 60*time.Second, "titletip-", "the queue", name)
	count := func() int {
		b, _ := os.ReadFile(dump)
		return strings.Count(string(b), "\n"+name+"\n")
	}
	// The first row is where the mouse clicks (the queue's first row in
	// the 1100×720 window); the details then show the name as the title.
	xdo("windowfocus", "--sync", wid)
	xdo("mousemove", "--sync", "300", "172")
	xdo("click", "1")
	waitWindowText(ctx, t, env, dump, &out, 30*time.Second, "titletip-", "the details", "Paused", "Files", "Mirrors")
	for end := time.Now().Add(5 * time.Second); count() < 2 && time.Now().Before(end); time.Sleep(200 * time.Millisecond) {
	}
	before := count()
	if before < 2 {
		t.Fatalf("the row and the title should both name the file; the window names it %d times", before)
	}
	xdo("mousemove", "--sync", "500", "375")
	xdo("mousemove", "--sync", "501", "376")
	for end := time.Now().Add(10 * time.Second); count() <= before && time.Now().Before(end); time.Sleep(200 * time.Millisecond) {
	}
	keepShot(t, screen(ctx, t, env), "titletip-shown")
	if n := count(); n <= before {
		t.Fatalf("resting on the cut title, the window names the file %d times, as before (%d): no tooltip\n%s", n, before, out.String())
	}
	xdo("mousemove", "--sync", "600", "650")
	for end := time.Now().Add(10 * time.Second); count() > before && time.Now().Before(end); time.Sleep(200 * time.Millisecond) {
	}
	if n := count(); n > before {
		t.Errorf("the tooltip stayed after the mouse left the title")
	}
}
