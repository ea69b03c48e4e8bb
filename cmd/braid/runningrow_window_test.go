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

// runningRow is a real window (Xvfb, xdotool) showing one download that
// runs while a test does: name, 64 MiB from one mirror at 512 KiB/s.
// Tests of the row's menu drive it.
type runningRow struct {
	r   *windowRig
	id  int64
	m   *mirrortest.Mirror
	ctx context.Context
	env []string
	out *syncBuffer
	xdo func(args ...string) string
	wid string // the window's X id
	bar bar    // the row's progress bar on the screen
	// prefix names the test's screenshots.
	prefix string
}

// newRunningRow starts the window on a queue holding one download of
// name, waits for it to run and finds its row by its progress bar's
// track. It skips without xdotool or xwd.
func newRunningRow(t *testing.T, prefix, name string, seed uint64) *runningRow {
	t.Helper()
	xdotool := needXdotool(t)
	xwd, err := exec.LookPath("xwd")
	if err != nil {
		t.Skip("xwd is not installed (Debian: apt-get install x11-apps); this test finds the row by the real window's pixels with it")
	}
	rr := &runningRow{r: newWindowRig(t, "downloads"), prefix: prefix, out: &syncBuffer{}}
	data := mirrortest.Bytes(64<<20, seed)
	rr.m = mirrortest.New(t, data, mirrortest.Rate(512<<10)) // two minutes: it runs while the test does
	f, err := piece.Describe(context.Background(), bytes.NewReader(data), int64(len(data)), name, 1<<20, 2)
	if err != nil {
		t.Fatal(err)
	}
	f.URLs = []metalink.URL{{URL: rr.m.URL(), Priority: 1}}
	q, err := queue.Open(rr.r.state)
	if err != nil {
		t.Fatal(err)
	}
	rr.id, err = q.Add(queue.NewJob{Source: rr.m.URL(), Dest: rr.r.dest, Doc: &metalink.Document{Version: 4, Files: []metalink.File{f}}})
	q.Close()
	if err != nil {
		t.Fatal(err)
	}

	rr.env = rr.r.env()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	t.Cleanup(cancel)
	rr.ctx = ctx
	startWindow(ctx, t, rr.r.bin, rr.env, rr.out)
	rr.xdo = xdoRunner(ctx, t, xdotool, rr.env, rr.out)
	ids := strings.Fields(rr.xdo("search", "--sync", "--name", "^Braid$"))
	if len(ids) == 0 {
		t.Fatalf("the window never showed\n%s", rr.out.String())
	}
	rr.wid = ids[0]
	rr.waitText(t, "the download running", func(s string) bool { return strings.Contains(s, name) && rr.m.BytesServed() > 0 })

	var bars []bar
	for end := time.Now().Add(30 * time.Second); len(bars) == 0 && time.Now().Before(end); time.Sleep(200 * time.Millisecond) {
		cmd := exec.CommandContext(ctx, xwd, "-root", "-silent")
		cmd.Env = rr.env
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
		rr.keep(t, "no-row")
		t.Fatal("no row with a progress bar on the screen")
	}
	rr.bar = bars[0]
	return rr
}

// keep takes a screenshot named after the test's prefix and what.
func (rr *runningRow) keep(t *testing.T, what string) {
	windowShot(rr.ctx, t, rr.env, rr.prefix+"-"+strings.ReplaceAll(what, " ", "-"))
}

// waitText waits up to a minute for the window's text dump to satisfy ok,
// and fails the test with what it shows when it does not.
func (rr *runningRow) waitText(t *testing.T, what string, ok func(string) bool) string {
	t.Helper()
	var texts string
	for end := time.Now().Add(60 * time.Second); time.Now().Before(end); time.Sleep(300 * time.Millisecond) {
		b, _ := os.ReadFile(rr.r.dump)
		if texts = string(b); texts != "" && ok(texts) {
			return texts
		}
	}
	rr.keep(t, what)
	t.Fatalf("%s: the window shows:\n%s\n%s", what, texts, rr.out.String())
	return ""
}

// openRowMenu right-clicks the row, a little left of its progress bar.
func (rr *runningRow) openRowMenu() {
	rr.xdo("windowfocus", "--sync", rr.wid)
	rr.xdo("mousemove", "--sync", strconv.Itoa(max(rr.bar.x0-200, 40)), strconv.Itoa(rr.bar.y))
	rr.xdo("click", "3")
	time.Sleep(400 * time.Millisecond) // the texts the window dumps hold no pop-up menu
}

// chooseItem goes down n items of the open menu and chooses that one.
func (rr *runningRow) chooseItem(n int) {
	for range n {
		rr.xdo("key", "Down")
	}
	rr.xdo("key", "Return")
}
