//go:build !headless

package main

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2/theme"

	"braid/queue"
	"braid/ui"
)

// TestWindowSidePanelFailed starts the real binary on its own Xvfb
// display over a queue of three finished and two failed downloads, and
// clicks "Failed" in the side panel through the X server (xdotool): the
// list then shows the two failed rows only: two rows on the screen (their
// progress bars, read with xwd), each with its state in the failed colour
// and none in the done colour; the entry shows chosen. A click on "All"
// brings the five back.
func TestWindowSidePanelFailed(t *testing.T) {
	t.Parallel()
	xdotool := needXdotool(t)
	xwd, err := exec.LookPath("xwd")
	if err != nil {
		t.Skip("xwd is not installed (Debian: apt-get install x11-apps); this test reads the real window's pixels with it")
	}
	r := newWindowRig(t, "downloads")
	names := []string{"done-0.bin", "done-1.bin", "broken-2.bin", "done-3.bin", "broken-4.bin"}
	r.fillQueue(t, func(q *queue.Queue) {
		for _, name := range names {
			id := addRefused(t, q, r.dest, name, 1000)
			var err error
			if strings.HasPrefix(name, "broken") {
				err = q.Fail(id, errors.New("404 Not Found from every mirror"))
			} else {
				_, err = q.Finish(id)
			}
			if err != nil {
				t.Fatal(err)
			}
		}
	})

	env := r.env()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var out syncBuffer
	win := startWindow(ctx, t, r.bin, env, &out)
	xdo := xdoRunner(ctx, t, xdotool, env, &out)
	ids := strings.Fields(xdo("search", "--sync", "--name", "^Braid$"))
	if len(ids) == 0 {
		t.Fatalf("the window never showed\n%s", out.String())
	}
	wid := ids[0]
	shot := func() image.Image {
		t.Helper()
		cmd := exec.CommandContext(ctx, xwd, "-root", "-silent")
		cmd.Env = env
		b, err := cmd.Output()
		if err != nil {
			t.Fatalf("xwd: %v", err)
		}
		img, err := decodeXWD(b)
		if err != nil {
			t.Fatalf("xwd: %v", err)
		}
		return img
	}
	keep := func(img image.Image, name string) {
		dir := os.Getenv("BRAID_TEST_SHOTS")
		if dir == "" {
			return
		}
		var b bytes.Buffer
		if png.Encode(&b, img) == nil {
			_ = os.WriteFile(filepath.Join(dir, name+".png"), b.Bytes(), 0o644)
		}
	}
	// rows waits until the list shows n rows (their empty progress
	// tracks: no bytes were recorded) and returns them.
	rows := func(what string, n int) []bar {
		t.Helper()
		var bars []bar
		for end := time.Now().Add(time.Minute); time.Now().Before(end); time.Sleep(200 * time.Millisecond) {
			if bars = findBars(shot(), barTrack); len(bars) == n {
				return bars
			}
		}
		keep(shot(), "sidepanel-"+what)
		t.Fatalf("%s: %d rows on the screen, want %d\n%s", what, len(bars), n, out.String())
		return nil
	}
	bars := rows("the queue", len(names))
	pitch := bars[1].y - bars[0].y

	// The chosen entry (All, at first) shows the selection colour (the
	// theme's, see-through, over the white of the panel) across the
	// panel, left of the list.
	sr, sg, sb, sa := ui.NewTheme().Color(theme.ColorNameSelection, theme.VariantLight).RGBA()
	chosen := color.RGBA64{R: uint16(sr + 0xffff - sa), G: uint16(sg + 0xffff - sa), B: uint16(sb + 0xffff - sa), A: 0xffff}
	px := bars[0].x0 / 4 // inside the panel: the list's rows start right of it
	highlight := func(img image.Image) (int, bool) {
		y0, y1 := -1, -1
		for y := img.Bounds().Min.Y; y < img.Bounds().Max.Y; y++ {
			if sameColor(img.At(px, y), chosen) {
				if y0 < 0 {
					y0 = y
				}
				y1 = y
			} else if y0 >= 0 {
				break
			}
		}
		return (y0 + y1) / 2, y0 >= 0 && y1-y0 > 10
	}
	before := shot()
	all, ok := highlight(before)
	if !ok {
		keep(shot(), "sidepanel-no-highlight")
		t.Fatalf("no side panel entry shows chosen at x=%d", px)
	}
	click := func(y int) {
		xdo("windowfocus", "--sync", wid)
		xdo("mousemove", "--sync", strconv.Itoa(px), strconv.Itoa(y))
		xdo("click", "1")
		xdo("mousemove", "--sync", "5", "5")
	}

	// Failed is the seventh entry: All, Downloading, Waiting, Queued,
	// Paused, Done, Failed.
	failedY := all + 6*pitch
	click(failedY)
	failed := rows("after a click on Failed", 2)
	img := shot()
	keep(img, "sidepanel-failed")
	if y, ok := highlight(img); !ok || y < failedY-pitch/3 || y > failedY+pitch/3 {
		t.Errorf("after the click the chosen entry is at y=%d (%v), want Failed at y=%d", y, ok, failedY)
	}
	if failed[0].y != bars[0].y {
		t.Errorf("the failed rows start at y=%d, the list at y=%d", failed[0].y, bars[0].y)
	}
	// Which rows they are: a failed row's state is in the error colour,
	// a done one's in the success colour.
	red := ui.NewTheme().Color(theme.ColorNameError, theme.VariantLight)
	green := ui.NewTheme().Color(theme.ColorNameSuccess, theme.VariantLight)
	has := func(img image.Image, y int, c color.Color) bool {
		for yy := y - pitch/3; yy <= y+pitch/3; yy++ {
			for x := failed[0].x1; x < img.Bounds().Max.X; x++ {
				if sameColor(img.At(x, yy), c) {
					return true
				}
			}
		}
		return false
	}
	for i, r := range failed {
		if !has(img, r.y, red) || has(img, r.y, green) {
			t.Errorf("row %d with Failed chosen: failed colour %v, done colour %v", i, has(img, r.y, red), has(img, r.y, green))
		}
	}
	for i, r := range bars {
		if want := strings.HasPrefix(names[i], "broken"); has(before, r.y, red) != want {
			t.Errorf("before the click, row %d (%s) in the failed colour: %v", i, names[i], !want)
		}
	}

	click(all)
	rows("after a click on All", len(names))
	xdo("windowfocus", "--sync", wid)
	xdo("key", "ctrl+q")
	if err := win.Wait(); err != nil {
		t.Fatalf("Quit: %v\n%s", err, out.String())
	}
}
