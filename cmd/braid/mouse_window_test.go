//go:build !headless

package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2/theme"

	"braid/queue"
	"braid/ui"
)

// The light theme's colours the mouse test looks for on the screen: the
// track of a row's progress bar, and the line that shows where a dragged
// job lands.
var (
	barTrack = ui.NewTheme().Color(theme.ColorNameInputBorder, theme.VariantLight)
	dropBlue = ui.NewTheme().Color(theme.ColorNamePrimary, theme.VariantLight)
)

// TestWindowMouse starts the real binary on its own Xvfb display over a
// queue of five finished downloads and uses the mouse through the X server
// (xdotool's XTEST, as a hand would), so Fyne's driver decides which
// widget hears each click. It reads the answer from the screen (xwd):
// which rows show the selection colour, and the line a drag draws; and
// from the queue: the order after a drop, the jobs a menu's Remove took.
// A double click must open the finished file with the desktop's opener
// (xdg-open, here a script that writes down what it was asked to open).
//
// It takes about 30 s: each gesture waits for the window to draw and for
// the queue to change, and the column widths are checked after a restart.
func TestWindowMouse(t *testing.T) {
	t.Parallel()
	xdotool := needXdotool(t)
	xwd, err := exec.LookPath("xwd")
	if err != nil {
		t.Skip("xwd is not installed (Debian: apt-get install x11-apps); this test reads the real window's pixels with it")
	}
	r := newWindowRig(t, "downloads")
	fake := filepath.Join(r.tmp, "bin")
	opened := filepath.Join(r.tmp, "opened.txt")
	if err := os.MkdirAll(fake, 0o700); err != nil {
		t.Fatal(err)
	}
	// The opener the window calls for a file: Fyne runs xdg-open.
	script := "#!/bin/sh\nprintf '%s\\n' \"$1\" >> " + opened + "\n"
	if err := os.WriteFile(filepath.Join(fake, "xdg-open"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}

	const rows = 5 // all in view in a 1100×720 window
	r.fillQueue(t, func(q *queue.Queue) {
		for i := range rows {
			name := fmt.Sprintf("row-%d.bin", i)
			data := bytes.Repeat([]byte{byte(i)}, 1000+i)
			if err := os.WriteFile(filepath.Join(r.dest, name), data, 0o644); err != nil {
				t.Fatal(err)
			}
			if _, err := q.Finish(addRefused(t, q, r.dest, name, int64(len(data)))); err != nil {
				t.Fatal(err)
			}
		}
	})

	env := r.env("PATH=" + fake + string(os.PathListSeparator) + os.Getenv("PATH"))
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
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

	// keep writes the screen to BRAID_TEST_SHOTS/name.png when that is
	// set: to look at what the test saw.
	keep := func(img image.Image, name string) {
		dir := os.Getenv("BRAID_TEST_SHOTS")
		if dir == "" {
			return
		}
		var b bytes.Buffer
		if err := png.Encode(&b, img); err == nil {
			_ = os.WriteFile(filepath.Join(dir, name+".png"), b.Bytes(), 0o644)
		}
	}

	// The rows, found by the tracks of their progress bars once the
	// window shows the queue (the jobs were marked done with no bytes
	// recorded: the tracks are empty).
	var bars []bar
	deadline := time.Now().Add(time.Minute)
	for len(bars) < rows {
		if time.Now().After(deadline) {
			keep(shot(), "mouse-no-rows")
			t.Fatalf("found %d finished rows on the screen, want %d\n%s", len(bars), rows, out.String())
		}
		time.Sleep(200 * time.Millisecond)
		bars = findBars(shot(), barTrack)
	}
	bars = bars[:rows]
	pitch := bars[1].y - bars[0].y
	// A point in each row that shows its background: the speed column,
	// right of the bar and its percentage, is empty for a finished job.
	px := bars[0].x0 + 200
	geo := xdo("getwindowgeometry", wid)
	park := func() { xdo("mousemove", "5", "5") } // outside the list: no row is hovered
	if !strings.Contains(geo, "Position") {
		t.Fatalf("window geometry: %q", geo)
	}
	park()
	plain := shot()
	background := make([]color.Color, rows)
	for i, b := range bars {
		background[i] = plain.At(px, b.y)
	}
	selected := func(img image.Image) []int {
		var out []int
		for i, b := range bars {
			if !sameColor(img.At(px, b.y), background[i]) {
				out = append(out, i)
			}
		}
		return out
	}
	// expect waits until the rows want are the selected ones (a click
	// lands after the double-click delay).
	expect := func(what string, want ...int) {
		t.Helper()
		park()
		var got []int
		for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(150 * time.Millisecond) {
			if got = selected(shot()); slices.Equal(got, want) {
				return
			}
		}
		keep(shot(), "mouse-selection")
		t.Fatalf("%s: rows %v selected, want %v\n%s", what, got, want, out.String())
	}
	at := func(row int) (string, string) {
		return strconv.Itoa(bars[0].x0 - 60), strconv.Itoa(bars[row].y)
	}
	click := func(row int, mod string) {
		t.Helper()
		x, y := at(row)
		xdo("windowfocus", "--sync", wid)
		xdo("mousemove", "--sync", x, y)
		if mod != "" {
			xdo("keydown", mod)
		}
		xdo("click", "1")
		if mod != "" {
			xdo("keyup", mod)
		}
		time.Sleep(450 * time.Millisecond) // past the double-click delay: the next click is a new one
	}

	expect("before any click")
	click(1, "")
	expect("click on row 1", 1)
	click(3, "ctrl")
	expect("Ctrl-click on row 3", 1, 3)
	click(4, "shift")
	expect("Shift-click on row 4 (from row 1)", 1, 2, 3, 4)
	keep(shot(), "mouse-shift-click")
	click(0, "")
	expect("click on row 0", 0)

	// Double click: opens the finished file with the desktop's opener.
	x, y := at(2)
	xdo("mousemove", "--sync", x, y)
	xdo("click", "--repeat", "2", "--delay", "80", "1")
	expect("double click on row 2", 2)
	want := filepath.Join(r.dest, "row-2.bin")
	for end := time.Now().Add(10 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		b, _ := os.ReadFile(opened)
		if strings.Contains(string(b), want) {
			if n := strings.Count(string(b), "\n"); n != 1 {
				t.Errorf("the double click opened %d things: %q", n, b)
			}
			break
		}
		if time.Now().After(end) {
			t.Fatalf("double click on row 2 did not open %s (opener got %q)\n%s", want, b, out.String())
		}
	}

	jobs := func() []string {
		t.Helper()
		cmd := exec.CommandContext(ctx, r.bin, "queue", "--state", r.state, "list", "--json")
		cmd.Env = env
		b, err := cmd.Output()
		if err != nil {
			t.Fatalf("queue list: %v", err)
		}
		var js []queueJob
		if err := json.Unmarshal(b, &js); err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, j := range js {
			names = append(names, strings.TrimSuffix(j.Name, ".bin"))
		}
		return names
	}
	waitJobs := func(what string, want ...string) {
		t.Helper()
		var got []string
		for end := time.Now().Add(15 * time.Second); time.Now().Before(end); time.Sleep(200 * time.Millisecond) {
			if got = jobs(); slices.Equal(got, want) {
				return
			}
		}
		t.Fatalf("%s: queue %v, want %v\n%s", what, got, want, out.String())
	}

	// Drag row 0 down three rows: while the button is held a line shows
	// where it lands (under row 3); the drop moves it there.
	x, y = at(0)
	xdo("mousemove", "--sync", x, y)
	xdo("mousedown", "1")
	yi, _ := strconv.Atoi(y)
	for step := 1; step <= 12; step++ {
		xdo("mousemove", "--sync", x, strconv.Itoa(yi+step*3*pitch/12))
		time.Sleep(30 * time.Millisecond)
	}
	time.Sleep(300 * time.Millisecond)
	dragging := shot()
	keep(dragging, "mouse-drag")
	line, ok := findLine(dragging, dropBlue, (bars[0].x1-bars[0].x0)*2, bars[0].y-pitch, bars[rows-1].y+pitch)
	if !ok {
		xdo("mouseup", "1")
		t.Fatal("no line shows where the dragged row will land")
	}
	if lo, hi := bars[3].y, bars[4].y; line <= lo || line >= hi {
		t.Errorf("the drop line is at y=%d, want between rows 3 (y=%d) and 4 (y=%d)", line, lo, hi)
	}
	xdo("mouseup", "1")
	waitJobs("drag of row 0 down three rows", "row-1", "row-2", "row-3", "row-0", "row-4")
	// The line goes with the drop (a loaded machine may draw a frame
	// late: look again for a while).
	for end := time.Now().Add(3 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		after := shot()
		if _, ok := findLine(after, dropBlue, (bars[0].x1-bars[0].x0)*2, bars[0].y-pitch, bars[rows-1].y+pitch); !ok {
			break
		}
		if time.Now().After(end) {
			keep(after, "mouse-line-stays")
			t.Error("the drop line stays after the drop")
			break
		}
	}

	// Right click: on a row in the selection, the menu acts on the whole
	// selection; its last item is Remove… (Up from none reaches it).
	click(1, "")
	click(2, "ctrl")
	expect("Ctrl-click after the drop", 1, 2)
	x, y = at(2)
	xdo("mousemove", "--sync", x, y)
	xdo("click", "3")
	time.Sleep(300 * time.Millisecond)
	keep(shot(), "mouse-row-menu")
	xdo("key", "Up")
	xdo("key", "Return") // the menu's Remove…
	time.Sleep(300 * time.Millisecond)
	xdo("key", "Return") // the dialog's Remove
	waitJobs("Remove from the row menu of a selection of two", "row-1", "row-0", "row-4")

	// Right click on a row outside the selection: selects it alone.
	click(0, "")
	x, y = at(2)
	xdo("mousemove", "--sync", x, y)
	xdo("click", "3")
	time.Sleep(300 * time.Millisecond)
	xdo("key", "Up")
	xdo("key", "Return")
	time.Sleep(300 * time.Millisecond)
	xdo("key", "Return")
	waitJobs("Remove from the row menu of an unselected row", "row-1", "row-0")

	// A click on the Size column's name sorts the list by size: row-0
	// (1000 bytes) comes first though the queue has it second, so the
	// top row's menu removes row-0.
	xdo("mousemove", "--sync", strconv.Itoa(bars[0].x0-30), strconv.Itoa(bars[0].y-pitch-2))
	xdo("click", "1")
	time.Sleep(500 * time.Millisecond)
	click(0, "")
	keep(shot(), "mouse-sorted")
	x, y = at(0)
	xdo("mousemove", "--sync", x, y)
	xdo("click", "3")
	time.Sleep(300 * time.Millisecond)
	xdo("key", "Up")
	xdo("key", "Return")
	time.Sleep(300 * time.Millisecond)
	xdo("key", "Return")
	waitJobs("Remove from the top row with the list sorted by size", "row-1")

	// A drag of the handle between Size and Progress widens Size by
	// 40 pixels: the progress bars move right by as much. The widths
	// and the sort order are kept: after Quit and a new start the bars
	// are where they were.
	hx, hy := bars[0].x0-2, bars[0].y-pitch-2
	xdo("mousemove", "--sync", strconv.Itoa(hx), strconv.Itoa(hy))
	xdo("mousedown", "1")
	for step := 1; step <= 8; step++ {
		xdo("mousemove", "--sync", strconv.Itoa(hx+step*5), strconv.Itoa(hy))
		time.Sleep(30 * time.Millisecond)
	}
	xdo("mouseup", "1")
	park()
	// The bars have moved once two shots in a row find them at the same
	// new place: on a loaded machine the window may still be drawing the
	// drag's last steps when the first shot is taken.
	var moved []bar
	for end, last := time.Now().Add(10*time.Second), -1; time.Now().Before(end); time.Sleep(150 * time.Millisecond) {
		if moved = findBars(shot(), barTrack); len(moved) == 1 && moved[0].x0 != bars[0].x0 {
			if moved[0].x0 == last {
				break
			}
			last = moved[0].x0
		}
	}
	if len(moved) != 1 || moved[0].x0-bars[0].x0 < 35 || moved[0].x0-bars[0].x0 > 45 {
		t.Fatalf("after widening Size by 40 pixels the bars are at %+v, were at x=%d", moved, bars[0].x0)
	}
	keep(shot(), "columns-resized")
	time.Sleep(500 * time.Millisecond) // Fyne writes its preferences shortly after a change
	xdo("windowfocus", "--sync", wid)
	xdo("key", "ctrl+q")
	if err := win.Wait(); err != nil {
		t.Fatalf("Quit: %v\n%s", err, out.String())
	}
	win = startWindow(ctx, t, r.bin, env, &out)
	wid = strings.Fields(xdo("search", "--sync", "--name", "^Braid$"))[0]
	var again []bar
	for end := time.Now().Add(30 * time.Second); time.Now().Before(end); time.Sleep(200 * time.Millisecond) {
		if again = findBars(shot(), barTrack); len(again) == 1 {
			break
		}
	}
	if len(again) != 1 || again[0].x0 != moved[0].x0 {
		t.Fatalf("after a restart the bars are at %+v, want x=%d as before it", again, moved[0].x0)
	}

	// Add URL takes several links: a screenshot of the box.
	xdo("key", "ctrl+n")
	time.Sleep(500 * time.Millisecond)
	xdo("type", "--delay", "5", "https://example.org/a.iso")
	xdo("key", "shift+Return")
	xdo("type", "--delay", "5", "https://example.org/b.iso")
	time.Sleep(300 * time.Millisecond)
	keep(shot(), "add-url-lines")
	xdo("key", "Escape")
	xdo("key", "ctrl+q")
	_ = win.Wait()
}

// bar is a horizontal band of one colour on the screen: a progress bar.
type bar struct{ x0, x1, y int }

// findBars finds the bands of colour c 40 to 400 pixels wide and at least
// 4 high, top to bottom, each by its middle line.
func findBars(img image.Image, c color.Color) []bar {
	var out []bar
	r := img.Bounds()
	in := false
	var first bar
	var last int
	for y := r.Min.Y; y < r.Max.Y; y++ {
		x0, x1 := longestRun(img, y, c)
		if x1-x0 >= 40 && x1-x0 <= 400 {
			if !in {
				first, in = bar{x0, x1, y}, true
			}
			last = y
			continue
		}
		if in && last-first.y >= 3 {
			first.y = (first.y + last) / 2
			out = append(out, first)
		}
		in = false
	}
	return out
}

// findLine finds a line of colour c at least minWidth long between
// lines y0 and y1 and returns its y.
func findLine(img image.Image, c color.Color, minWidth, y0, y1 int) (int, bool) {
	for y := y0; y < y1; y++ {
		if x0, x1 := longestRun(img, y, c); x1-x0 >= minWidth {
			return y, true
		}
	}
	return 0, false
}

func longestRun(img image.Image, y int, c color.Color) (int, int) {
	r := img.Bounds()
	best0, best1, start := 0, 0, -1
	for x := r.Min.X; x <= r.Max.X; x++ {
		if x < r.Max.X && sameColor(img.At(x, y), c) {
			if start < 0 {
				start = x
			}
			continue
		}
		if start >= 0 && x-start > best1-best0 {
			best0, best1 = start, x
		}
		start = -1
	}
	return best0, best1
}

func sameColor(a, b color.Color) bool {
	r1, g1, b1, _ := a.RGBA()
	r2, g2, b2, _ := b.RGBA()
	return r1>>8 == r2>>8 && g1>>8 == g2>>8 && b1>>8 == b2>>8
}

// decodeXWD reads what `xwd -root` writes for a 24-bit TrueColor screen:
// the X Window Dump header (25 big-endian 32-bit fields), the window name,
// the colour map, then rows of 24- or 32-bit pixels.
func decodeXWD(b []byte) (image.Image, error) {
	if len(b) < 100 {
		return nil, errors.New("too short for an X window dump")
	}
	f := func(i int) uint32 { return binary.BigEndian.Uint32(b[4*i:]) }
	headerSize, format, width, height := f(0), f(2), int(f(4)), int(f(5))
	byteOrder, bpp, stride := f(7), f(11), int(f(12))
	masks := [3]uint32{f(14), f(15), f(16)}
	ncolors := int(f(19))
	if format != 2 || (bpp != 32 && bpp != 24) {
		return nil, fmt.Errorf("pixmap format %d with %d bits a pixel; want ZPixmap, 24 or 32", format, bpp)
	}
	size := int(bpp / 8)
	data := int(headerSize) + 12*ncolors
	if len(b) < data+stride*height {
		return nil, fmt.Errorf("%d bytes, want %d", len(b), data+stride*height)
	}
	img := image.NewRGBA(image.Rect(0, 0, width, height))
	for y := range height {
		row := b[data+y*stride:]
		for x := range width {
			var v uint32
			for k := range size {
				if byteOrder == 0 { // LSB first
					v |= uint32(row[size*x+k]) << (8 * k)
				} else {
					v = v<<8 | uint32(row[size*x+k])
				}
			}
			var c [3]uint8
			for i, m := range masks {
				shift := 0
				for m != 0 && m&1 == 0 {
					m >>= 1
					shift++
				}
				c[i] = uint8(v >> shift & 0xff)
			}
			img.SetRGBA(x, y, color.RGBA{c[0], c[1], c[2], 0xff})
		}
	}
	return img, nil
}
