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

// TestWindowJobLimit gives a running download its own speed limit in the
// real window, with the mouse and the keyboard through the X server: a
// right click on its row, "Speed limit…" (the fourth item: Pause, Resume,
// Stop seeding, Speed limit…), a rate typed into the dialog, Enter. The
// queue then holds the limit, the row shows it beside the speed, and the
// download goes on: the mirror was asked for the file's first byte once.
// `braid queue limit ID none` from another process removes it, and the
// window follows.
func TestWindowJobLimit(t *testing.T) {
	t.Parallel()
	xdotool := needXdotool(t)
	xwd, err := exec.LookPath("xwd")
	if err != nil {
		t.Skip("xwd is not installed (Debian: apt-get install x11-apps); this test reads the real window's pixels with it")
	}
	r := newWindowRig(t, "downloads")
	data := mirrortest.Bytes(64<<20, 17)
	m := mirrortest.New(t, data, mirrortest.Rate(512<<10)) // two minutes: it runs while the test does
	f, err := piece.Describe(context.Background(), bytes.NewReader(data), int64(len(data)), "limited.bin", 1<<20, 2)
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
		keep("limit-" + strings.ReplaceAll(what, " ", "-"))
		t.Fatalf("%s: the window shows:\n%s\n%s", what, texts, out.String())
		return ""
	}
	ids := strings.Fields(xdo("search", "--sync", "--name", "^Braid$"))
	if len(ids) == 0 {
		t.Fatalf("the window never showed\n%s", out.String())
	}
	wid := ids[0]
	waitText("the download running", func(s string) bool { return strings.Contains(s, "limited.bin") && m.BytesServed() > 0 })

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
		keep("limit-no-row")
		t.Fatal("no row with a progress bar on the screen")
	}
	xdo("windowfocus", "--sync", wid)
	xdo("mousemove", "--sync", strconv.Itoa(max(bars[0].x0-200, 40)), strconv.Itoa(bars[0].y))
	xdo("click", "3")
	time.Sleep(400 * time.Millisecond)
	keep("limit-row-menu")
	// Pause, Resume, Stop seeding and Speed limit… ("Change link…" of a
	// download running well comes after the common actions).
	for range 4 {
		xdo("key", "Down")
	}
	xdo("key", "Return")
	waitText("the dialog", func(s string) bool { return strings.Contains(s, "How fast “limited.bin” may download:") })
	xdo("type", "--delay", "50", "200K")
	time.Sleep(300 * time.Millisecond)
	keep("limit-dialog")
	xdo("key", "Return")

	limit := func() int64 {
		q, err := queue.Open(r.state)
		if err != nil {
			return -1
		}
		defer q.Close()
		n, _ := q.Limit(id)
		return n
	}
	for end := time.Now().Add(20 * time.Second); limit() != 200<<10; time.Sleep(200 * time.Millisecond) {
		if time.Now().After(end) {
			keep("limit-not-set")
			t.Fatalf("the queue's limit for the job is %d after the dialog, want %d\n%s", limit(), 200<<10, out.String())
		}
	}
	// The details line has it beside the speed; the row's speed column
	// too, cut short at its default width.
	waitText("the limit shown", func(s string) bool { return strings.Contains(s, "≤ 200 KiB/s") })
	keep("limit-row")

	// Another process lifts it; the window's runner and row follow.
	cmd := exec.CommandContext(ctx, r.bin, "queue", "--state", r.state, "limit", strconv.FormatInt(id, 10), "none")
	cmd.Env = env
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("braid queue limit: %v\n%s", err, b)
	}
	waitText("the limit gone from the row", func(s string) bool { return !strings.Contains(s, "≤ 200 KiB/s") })

	fromStart := 0
	for _, r := range m.Ranges() {
		if r.Method == "GET" && r.Off == 0 {
			fromStart++
		}
	}
	if fromStart != 1 {
		t.Errorf("%d requests from the file's first byte: setting the limit restarted the download (%+v)", fromStart, m.Ranges())
	}
	q, err = queue.Open(r.state)
	if err != nil {
		t.Fatal(err)
	}
	s, err := q.StateOf(id)
	q.Close()
	if err != nil || s != queue.Running {
		t.Errorf("after the limit came and went the job is %s (%v), want running", s, err)
	}
	// The window is killed when the test ends: quitting now would ask
	// about the download still running.
}
