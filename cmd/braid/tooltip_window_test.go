//go:build !headless

package main

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2/theme"

	"braid/queue"
	"braid/ui"
)

// TestWindowCutTextTooltip runs the real window over a queue with a job
// whose one mirror refuses connections, shows its Mirrors tab (xdotool
// clicks), rests the mouse on the mirror's state, cut short ("Waiting:
// The server refused the co…"), and reads back the window's texts: the
// whole state shows in the tooltip, the window's last text. Moved away,
// the tooltip goes.
// Where the Mirrors tab and the first mirror's state are in the
// 1100×720 window, the split where it starts.
const mirrorsTabX, mirrorsTabY, mirrorStateX, mirrorRowY, mirrorRowY1 = "320", "471", "700", "551", "552"

func TestWindowCutTextTooltip(t *testing.T) {
	t.Parallel()
	xdotool := needXdotool(t)
	needXwd(t)
	r := newWindowRig(t, "dest")
	r.fillQueue(t, func(q *queue.Queue) { addRefused(t, q, r.dest, "refused.iso", 5<<20) })

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	env := r.env()
	var out syncBuffer
	startWindow(ctx, t, r.bin, env, &out)
	xdo := xdoRunner(ctx, t, xdotool, env, &out)
	wid := strings.Fields(xdo("search", "--sync", "--name", "^Braid$"))[0]
	waitWindowText(ctx, t, env, r.dump, &out, 60*time.Second, "tooltip-", "waiting", "Waiting: ")
	track := ui.NewTheme().Color(theme.ColorNameInputBorder, theme.VariantLight)
	var bars []bar
	for end := time.Now().Add(30 * time.Second); len(bars) < 1 && time.Now().Before(end); time.Sleep(200 * time.Millisecond) {
		bars = findBars(screen(ctx, t, env), track)
	}
	if len(bars) < 1 {
		t.Fatal("the row never showed")
	}
	xdo("windowfocus", "--sync", wid)
	xdo("mousemove", "--sync", strconv.Itoa(bars[0].x0-150), strconv.Itoa(bars[0].y))
	xdo("click", "1")
	time.Sleep(800 * time.Millisecond)
	xdo("mousemove", "--sync", mirrorsTabX, mirrorsTabY)
	xdo("click", "1")
	texts := waitWindowText(ctx, t, env, r.dump, &out, 20*time.Second, "tooltip-", "mirrors tab", "127.0.0.1:9", "Priority")
	var whole string
	for _, l := range strings.Split(texts, "\n") {
		if strings.HasPrefix(l, "Waiting: ") && !strings.Contains(l, " · ") {
			whole = l
		}
	}
	keepShot(t, screen(ctx, t, env), "tooltip-mirrors")
	if len(whole) < 30 {
		t.Fatalf("no mirror waiting in the window's texts:\n%s", texts)
	}
	// The tooltip is the last text of the window (its layer lies over
	// the content) when no dialog is open. Counting the whole text's
	// lines instead missed it: the job's row says the same words, and
	// the row changes at every retry.
	tip := func() bool { return lastLine(r.dump) == whole }
	if tip() {
		t.Fatalf("a tooltip %q shows before the mouse rests on the cell", whole)
	}
	xdo("windowfocus", "--sync", wid)
	xdo("mousemove", "--sync", mirrorStateX, mirrorRowY)
	xdo("mousemove", "--sync", mirrorStateX, mirrorRowY1)
	for end := time.Now().Add(5 * time.Second); !tip() && time.Now().Before(end); time.Sleep(200 * time.Millisecond) {
	}
	keepShot(t, screen(ctx, t, env), "tooltip-shown")
	if !tip() {
		b, _ := os.ReadFile(r.dump)
		t.Fatalf("resting on the cut cell, the window's last text is %q, not the tooltip %q\n%s\n%s", lastLine(r.dump), whole, b, out.String())
	}
	xdo("mousemove", "--sync", "600", "600")
	for end := time.Now().Add(5 * time.Second); tip() && time.Now().Before(end); time.Sleep(200 * time.Millisecond) {
	}
	if tip() {
		t.Errorf("the tooltip stayed after the mouse left the cell")
	}
}

// lastLine is the last line of the window's texts dumped to path.
func lastLine(path string) string {
	b, _ := os.ReadFile(path)
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	return lines[len(lines)-1]
}
