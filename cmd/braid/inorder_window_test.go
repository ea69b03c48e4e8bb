//go:build !headless

package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"braid/engine/metalink"
	"braid/engine/mirrortest"
	"braid/engine/piece"
	"braid/queue"
)

// TestWindowDownloadInOrder sets a running download to download in order
// in the real window, with the mouse and the keyboard through the X
// server: a right click on its row shows "Download in order" (the fifth
// item: Pause, Resume, Stop seeding, Speed limit…, Download in order),
// Down five times and Enter choose it, and the queue then keeps the job
// in order. The same item, chosen again, turns it off.
func TestWindowDownloadInOrder(t *testing.T) {
	t.Parallel()
	xdotool := needXdotool(t)
	xwd, err := exec.LookPath("xwd")
	if err != nil {
		t.Skip("xwd is not installed (Debian: apt-get install x11-apps); this test finds the row by the real window's pixels with it")
	}
	r := newWindowRig(t, "downloads")
	data := mirrortest.Bytes(64<<20, 19)
	m := mirrortest.New(t, data, mirrortest.Rate(512<<10)) // two minutes: it runs while the test does
	f, err := piece.Describe(context.Background(), bytes.NewReader(data), int64(len(data)), "film.mkv", 1<<20, 2)
	if err != nil {
		t.Fatal(err)
	}
	f.URLs = []metalink.URL{{URL: m.URL(), Priority: 1}}
	q, err := queue.Open(r.state)
	if err != nil {
		t.Fatal(err)
	}
	id, err := q.Add(m.URL(), r.dest, &metalink.Document{Version: 4, Files: []metalink.File{f}}, nil)
	q.Close()
	if err != nil {
		t.Fatal(err)
	}

	env := r.env()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	var out syncBuffer
	startWindow(ctx, t, r.bin, env, &out)
	xdo := xdoRunner(ctx, t, xdotool, env, &out)
	keep := func(name string) { windowShot(ctx, t, env, name) }
	waitText := func(what string, ok func(string) bool) string {
		t.Helper()
		var texts string
		for end := time.Now().Add(60 * time.Second); time.Now().Before(end); time.Sleep(300 * time.Millisecond) {
			b, _ := os.ReadFile(r.dump)
			if texts = string(b); texts != "" && ok(texts) {
				return texts
			}
		}
		keep("inorder-" + strings.ReplaceAll(what, " ", "-"))
		t.Fatalf("%s: the window shows:\n%s\n%s", what, texts, out.String())
		return ""
	}
	ids := strings.Fields(xdo("search", "--sync", "--name", "^Braid$"))
	if len(ids) == 0 {
		t.Fatalf("the window never showed\n%s", out.String())
	}
	wid := ids[0]
	waitText("the download running", func(s string) bool { return strings.Contains(s, "film.mkv") && m.BytesServed() > 0 })

	// The row: found by its progress bar's track.
	var bars []bar
	for end := time.Now().Add(30 * time.Second); len(bars) == 0 && time.Now().Before(end); time.Sleep(200 * time.Millisecond) {
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
		bars = findBars(img, barTrack)
	}
	if len(bars) == 0 {
		keep("inorder-no-row")
		t.Fatal("no row with a progress bar on the screen")
	}
	inOrder := func() (bool, error) {
		q, err := queue.Open(r.state)
		if err != nil {
			return false, err
		}
		defer q.Close()
		return q.InOrder(id)
	}
	for i, want := range []bool{true, false} {
		xdo("windowfocus", "--sync", wid)
		xdo("mousemove", "--sync", strconv.Itoa(max(bars[0].x0-200, 40)), strconv.Itoa(bars[0].y))
		xdo("click", "3")
		time.Sleep(400 * time.Millisecond) // the texts the window dumps hold no pop-up menu
		keep("inorder-row-menu-" + strconv.Itoa(i))
		for range 5 {
			xdo("key", "Down")
		}
		xdo("key", "Return")
		for end := time.Now().Add(20 * time.Second); ; time.Sleep(200 * time.Millisecond) {
			on, err := inOrder()
			if err == nil && on == want {
				break
			}
			if time.Now().After(end) {
				keep("inorder-not-set")
				t.Fatalf("choice %d: the queue keeps the job in order %v (%v), want %v\n%s", i+1, on, err, want, out.String())
			}
		}
	}
	// The window is killed when the test ends: quitting now would ask
	// about the download still running.
}
