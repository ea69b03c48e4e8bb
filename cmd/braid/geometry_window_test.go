//go:build !headless

package main

import (
	"context"
	"image"
	"image/color"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2/theme"

	"braid/queue"
	"braid/ui"
)

// TestWindowGeometryAfterRestart runs the real window on Xvfb, makes it
// 1240×780 (xdotool, as a window manager would), drags the edge between
// Name and Size far left and the split between the queue and the details
// down, and quits. Started again, the window must be 1240×780 with the
// columns and the split where they were, and the name column no
// narrower than its minimum, 120 pixels (it stops there when dragged).
// Then the window is made 1000×650 and started again: it comes back at
// that size, and the name column still has its minimum, the other
// columns giving up width (it used to come back at zero width, every
// row "…").
func TestWindowGeometryAfterRestart(t *testing.T) {
	t.Parallel()
	xdotool := needXdotool(t)
	needXwd(t)
	r := newWindowRig(t, "dest")
	r.fillQueue(t, func(q *queue.Queue) {
		for _, name := range []string{"first-archive.tar", "second-archive.tar"} {
			if err := q.Pause(addRefused(t, q, r.dest, name, 5<<20), ""); err != nil {
				t.Fatal(err)
			}
		}
	})

	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	env := r.env()
	var out syncBuffer
	xdo := xdoRunner(ctx, t, xdotool, env, &out)
	th := ui.NewTheme()
	track := th.Color(theme.ColorNameInputBorder, theme.VariantLight)
	sep := th.Color(theme.ColorNameSeparator, theme.VariantLight)
	bg := th.Color(theme.ColorNameBackground, theme.VariantLight)

	var win *exec.Cmd
	var wid string
	start := func() {
		win = startWindow(ctx, t, r.bin, env, &out)
		// --onlyvisible: the window exists, titled, a moment before it
		// is shown and given the size it asks for; a resize in that
		// moment would be undone.
		wid = strings.Fields(xdo("search", "--sync", "--onlyvisible", "--name", "^Braid$"))[0]
	}
	quit := func() {
		time.Sleep(600 * time.Millisecond) // Fyne writes its preferences shortly after a change
		xdo("windowfocus", "--sync", wid)
		xdo("key", "ctrl+q")
		if err := win.Wait(); err != nil {
			t.Fatalf("Quit: %v\n%s", err, out.String())
		}
	}
	size := func() (int, int) {
		geo := map[string]int{}
		for _, l := range strings.Split(xdo("getwindowgeometry", "--shell", wid), "\n") {
			if k, v, ok := strings.Cut(l, "="); ok {
				geo[k], _ = strconv.Atoi(v)
			}
		}
		return geo["WIDTH"], geo["HEIGHT"]
	}
	// sizeSoon is the window's size once it is w×h, or after 10 s: a
	// window is mapped, then given the size it asks for, and under load
	// the second can come a while after the first.
	sizeSoon := func(w, h int) (int, int) {
		gw, gh := size()
		for end := time.Now().Add(10 * time.Second); (gw != w || gh != h) && time.Now().Before(end); gw, gh = size() {
			time.Sleep(100 * time.Millisecond)
		}
		return gw, gh
	}
	// look reads the layout off the screen: where the progress column
	// starts, where the side panel ends, where the Name|Size edge is in
	// the header, and where the split's divider is.
	type layout struct{ progress, side, nameEdge, divider int }
	look := func(what string) layout {
		t.Helper()
		var img image.Image
		var bars []bar
		for end := time.Now().Add(30 * time.Second); time.Now().Before(end); time.Sleep(200 * time.Millisecond) {
			img = screen(ctx, t, env)
			if bars = findBars(img, track); len(bars) == 2 {
				break
			}
		}
		keepShot(t, img, "geometry-"+what)
		if len(bars) != 2 {
			t.Fatalf("%s: %d rows with a bar on the screen, want 2\n%s", what, len(bars), out.String())
		}
		pitch := bars[1].y - bars[0].y
		var l layout
		l.progress = bars[0].x0
		for x := 40; x < bars[0].x0 && l.side == 0; x++ {
			if sameColor(img.At(x, bars[0].y), sep) && sameColor(img.At(x, bars[1].y), sep) {
				l.side = x
			}
		}
		hy := bars[0].y - pitch
		for x := l.side + 30; x < bars[0].x0; x++ {
			if sameColor(img.At(x, hy-4), sep) && sameColor(img.At(x, hy), sep) && sameColor(img.At(x, hy+4), sep) {
				l.nameEdge = x
				break
			}
		}
		l.divider = findDivider(img, l.side+12, bars[1].y+pitch/2, bg)
		if l.side == 0 || l.nameEdge == 0 || l.divider == 0 {
			t.Fatalf("%s: layout not found on the screen: %+v", what, l)
		}
		return l
	}

	// resize makes the window w×h as a window manager would, once it
	// has the size it asked for (1100×720 at first): Fyne sizes a new
	// window after it is shown, and that would undo a resize before it.
	resize := func(from, to [2]int) {
		t.Helper()
		if w, h := sizeSoon(from[0], from[1]); w != from[0] || h != from[1] {
			t.Fatalf("the window is %d×%d, asked for %d×%d\n%s", w, h, from[0], from[1], out.String())
		}
		for try := 1; ; try++ {
			xdo("windowsize", "--sync", wid, strconv.Itoa(to[0]), strconv.Itoa(to[1]))
			w, h := sizeSoon(to[0], to[1])
			if w == to[0] && h == to[1] {
				break
			}
			// On a loaded machine Fyne's own sizing of the new window
			// (to the size it asked for) can land after the resize and
			// undo it; a window manager would then resize again too.
			if try == 3 || w != from[0] || h != from[1] {
				t.Fatalf("made %d×%d (try %d), the window is %d×%d", to[0], to[1], try, w, h)
			}
		}
		time.Sleep(500 * time.Millisecond)
	}

	start()
	resize([2]int{1100, 720}, [2]int{1240, 780})
	before := look("wide")
	// The Name|Size edge, dragged to the side panel in steps, stops
	// where the name has its minimum.
	bars := findBars(screen(ctx, t, env), track)
	if len(bars) != 2 {
		t.Fatalf("%d rows with a bar on the screen before the drag, want 2", len(bars))
	}
	hy := strconv.Itoa(bars[0].y - (bars[1].y - bars[0].y))
	x := before.nameEdge
	xdo("mousemove", "--sync", strconv.Itoa(x), hy)
	xdo("mousedown", "1")
	for step := 1; x-step*50 > before.side+10; step++ {
		xdo("mousemove", "--sync", strconv.Itoa(x-step*50), hy)
		time.Sleep(20 * time.Millisecond)
	}
	xdo("mouseup", "1")
	// The divider, dragged 100 pixels down.
	dx := strconv.Itoa(before.side + 300)
	xdo("mousemove", "--sync", dx, strconv.Itoa(before.divider+2))
	xdo("mousedown", "1")
	for step := 1; step <= 10; step++ {
		xdo("mousemove", "--sync", dx, strconv.Itoa(before.divider+2+step*10))
		time.Sleep(20 * time.Millisecond)
	}
	xdo("mouseup", "1")
	xdo("mousemove", "--sync", strconv.Itoa(before.side+400), "5")
	time.Sleep(400 * time.Millisecond)
	dragged := look("dragged")
	if name := dragged.nameEdge - dragged.side; name < 120 || name > 180 {
		t.Errorf("after its edge was dragged far left the name column spans %d pixels from the side panel, want its minimum (120) and the icon's", name)
	}
	if d := dragged.divider - before.divider; d < 80 || d > 120 {
		t.Errorf("the divider moved %d pixels, dragged 100", d)
	}
	quit()

	start()
	if w, h := sizeSoon(1240, 780); w != 1240 || h != 780 {
		t.Errorf("after a restart the window is %d×%d, was left 1240×780", w, h)
	}
	again := look("restarted")
	if again != dragged {
		t.Errorf("after a restart the layout is %+v, was left %+v", again, dragged)
	}

	// Another size, and a restart at it: the name keeps its minimum.
	resize([2]int{1240, 780}, [2]int{1000, 650})
	quit()
	start()
	if w, h := sizeSoon(1000, 650); w != 1000 || h != 650 {
		t.Errorf("after a restart the window is %d×%d, was left 1000×650", w, h)
	}
	narrow := look("narrow")
	if name := narrow.nameEdge - narrow.side; name < 120 {
		t.Errorf("in a 1000-pixel window the name column spans %d pixels from the side panel, below its minimum 120", name)
	}
	if narrow.progress >= 1000 {
		t.Errorf("the progress column starts at x=%d, off the 1000-pixel window", narrow.progress)
	}
	quit()
}

// findDivider finds, going down from y0 at x, the split's divider: the
// first band at least 4 pixels high of one colour other than bg that
// spans 400 pixels or more; 0 when there is none.
func findDivider(img image.Image, x, y0 int, bg color.Color) int {
	for y := y0; y < img.Bounds().Max.Y-4; y++ {
		c := img.At(x, y)
		if sameColor(c, bg) {
			continue
		}
		ok := true
		for k := range 4 {
			x0, x1 := longestRun(img, y+k, c)
			ok = ok && x1-x0 >= 400
		}
		if ok {
			return y
		}
	}
	return 0
}
