//go:build !headless

package main

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2/theme"

	"braid/engine/metalink"
	"braid/queue"
	"braid/ui"
)

// TestWindowCutTextTooltip runs the real window over a queue with a
// failed job whose reason is longer than the State column, rests the
// mouse on that cell (xdotool) and reads back the window's texts: the
// whole reason shows a second time, in the tooltip, beside the cut cell.
// Moved away, the tooltip goes.
func TestWindowCutTextTooltip(t *testing.T) {
	xdotool, err := exec.LookPath("xdotool")
	if err != nil {
		t.Skip("xdotool is not installed (Debian: apt-get install xdotool, or make setup); this test moves the mouse on a real window with it")
	}
	if _, err := exec.LookPath("xwd"); err != nil {
		t.Skip("xwd is not installed (Debian: apt-get install x11-apps); this test reads the screen with it")
	}
	tmp, bin, display := realWindow(t)
	state := filepath.Join(tmp, "state")
	dest := filepath.Join(tmp, "dest")
	dump := filepath.Join(tmp, "texts.txt")
	for _, d := range []string{filepath.Join(tmp, "home"), filepath.Join(tmp, "run"), dest} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	q, err := queue.Open(state)
	if err != nil {
		t.Fatal(err)
	}
	for i, name := range []string{"first.iso", "second.iso"} {
		link := "http://127.0.0.1:9/" + name
		doc := &metalink.Document{Version: 4, Files: []metalink.File{{Name: name, Size: 5 << 20, URLs: []metalink.URL{{URL: link, Priority: 1}}}}}
		id, err := q.Add(link, dest, doc, nil)
		if err == nil && i == 0 {
			err = q.Pause(id, "")
		}
		if err == nil && i == 1 {
			err = q.Fail(id, errors.New("the server answered 404 Not Found"))
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	q.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	env := windowEnv(display, tmp, state, "BRAID_DUMP_TEXTS="+dump)
	var out syncBuffer
	startWindow(ctx, t, bin, env, &out)
	xdo := xdoRunner(ctx, t, xdotool, env, &out)
	wid := strings.Fields(xdo("search", "--sync", "--name", "^Braid$"))[0]
	texts := waitWindowText(ctx, t, env, dump, &out, 60*time.Second, "tooltip-", "queue", "Failed")
	var whole string
	for _, l := range strings.Split(texts, "\n") {
		if strings.HasPrefix(l, "Failed: ") {
			whole = l
		}
	}
	if len(whole) < 40 {
		t.Fatalf("no long failure in the window's texts:\n%s", texts)
	}
	track := ui.NewTheme().Color(theme.ColorNameInputBorder, theme.VariantLight)
	var bars []bar
	for end := time.Now().Add(30 * time.Second); len(bars) < 2 && time.Now().Before(end); time.Sleep(200 * time.Millisecond) {
		bars = findBars(screen(ctx, t, env), track)
	}
	if len(bars) < 2 {
		t.Fatal("the rows never showed")
	}
	count := func() int {
		b, _ := os.ReadFile(dump)
		n := 0
		for _, l := range strings.Split(string(b), "\n") {
			if l == whole {
				n++
			}
		}
		return n
	}
	before := count()
	xdo("windowfocus", "--sync", wid)
	// The State column: 240 pixels from 150 right of the progress bar.
	x := strconv.Itoa(bars[1].x1 + 250)
	xdo("mousemove", "--sync", x, strconv.Itoa(bars[1].y))
	xdo("mousemove", "--sync", x, strconv.Itoa(bars[1].y+1))
	for end := time.Now().Add(5 * time.Second); count() <= before && time.Now().Before(end); time.Sleep(200 * time.Millisecond) {
	}
	keepShot(t, screen(ctx, t, env), "tooltip-shown")
	if n := count(); n <= before {
		t.Fatalf("resting on the cut cell, the window shows %q %d times, as before (%d): no tooltip\n%s", whole, n, before, out.String())
	}
	xdo("mousemove", "--sync", "600", "600")
	for end := time.Now().Add(5 * time.Second); count() > before && time.Now().Before(end); time.Sleep(200 * time.Millisecond) {
	}
	if n := count(); n > before {
		t.Errorf("the tooltip stayed after the mouse left the cell")
	}
}
