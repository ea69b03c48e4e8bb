//go:build !headless

package main

import (
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

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
	rr := newRunningRow(t, "limit", "limited.bin", 17)
	r, id, m, out, xdo := rr.r, rr.id, rr.m, rr.out, rr.xdo
	keep := func(name string) { rr.keep(t, strings.TrimPrefix(name, "limit-")) }
	waitText := func(what string, ok func(string) bool) string { t.Helper(); return rr.waitText(t, what, ok) }
	rr.openRowMenu()
	keep("limit-row-menu")
	// Pause, Resume, Stop seeding and Speed limit… ("Change link…" of a
	// download running well comes after the common actions).
	rr.chooseItem(4)
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
		j, _ := q.Get(id)
		return j.Limit
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
	cmd := exec.CommandContext(rr.ctx, r.bin, "queue", "--state", r.state, "limit", strconv.FormatInt(id, 10), "none")
	cmd.Env = rr.env
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
	q, err := queue.Open(r.state)
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
