//go:build !headless

package main

import (
	"context"
	"errors"
	"image"
	"image/color"
	"image/png"
	"math"
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

// TestWindowTextContrast runs the real window on Xvfb over a queue with a
// done, a paused, a failed and a queued job, once in the light theme and
// once in the dark, and measures on the screen's pixels the contrast of
// every piece of text in the column headers, the rows, the side panel and
// the status bar against the background behind it: each must reach
// 4.5:1 (WCAG AA for normal text). A piece of text is a run of pixels
// that differ from the region's background; its colour is its pixel
// farthest from that background, which in a glyph's stem is the text's
// own colour.
func TestWindowTextContrast(t *testing.T) {
	t.Parallel()
	xdotool := needXdotool(t)
	needXwd(t)
	r := newWindowRig(t, "dest")
	q, err := queue.Open(r.state)
	if err != nil {
		t.Fatal(err)
	}
	add := func(name string) int64 { return addRefused(t, q, r.dest, name, 5<<20) }
	// The first row has an empty progress bar: the test finds the rows
	// by their bars' tracks, and the header just above the first.
	if err := q.Pause(add("paused-archive.tar"), ""); err != nil {
		t.Fatal(err)
	}
	done := add("finished-report.pdf")
	if err := q.SetFile(done, "finished-report.pdf", queue.VerifiedBy("sha-256")); err != nil {
		t.Fatal(err)
	}
	if _, err := q.Finish(done); err != nil {
		t.Fatal(err)
	}
	if err := q.Fail(add("failed-image.iso"), errors.New("the server answered 404 Not Found")); err != nil {
		t.Fatal(err)
	}
	if err := q.Pause(add("later-video.mkv"), ""); err != nil {
		t.Fatal(err)
	}
	if err := q.UpdateSettings(func(s *queue.Settings) { s.DownloadDir = r.dest }); err != nil {
		t.Fatal(err)
	}
	q.Close()

	for _, variant := range []string{"light", "dark"} {
		t.Run(variant, func(t *testing.T) {
			v := theme.VariantLight
			if variant == "dark" {
				v = theme.VariantDark
			}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			env := r.env("FYNE_THEME=" + variant)
			var out syncBuffer
			win := startWindow(ctx, t, r.bin, env, &out)
			defer func() {
				_ = win.Process.Kill()
				_ = win.Wait()
			}()
			xdo := xdoRunner(ctx, t, xdotool, env, &out)
			wid := strings.Fields(xdo("search", "--sync", "--name", "^Braid$"))[0]
			geo := map[string]int{}
			for _, l := range strings.Split(xdo("getwindowgeometry", "--shell", wid), "\n") {
				if k, val, ok := strings.Cut(l, "="); ok {
					geo[k], _ = strconv.Atoi(val)
				}
			}
			winRect := image.Rect(geo["X"], geo["Y"], geo["X"]+geo["WIDTH"], geo["Y"]+geo["HEIGHT"])
			th := ui.NewTheme()
			track := th.Color(theme.ColorNameInputBorder, v)
			sep := th.Color(theme.ColorNameSeparator, v)
			var img image.Image
			var rows []bar
			for end := time.Now().Add(30 * time.Second); ; time.Sleep(300 * time.Millisecond) {
				img = screen(ctx, t, env)
				if rows = findBars(img, track); len(rows) >= 2 || time.Now().After(end) {
					break
				}
			}
			windowShot(ctx, t, env, "contrast-"+variant)
			keepShot(t, img, "contrast-"+variant)
			if len(rows) < 2 {
				t.Fatalf("the queue's rows never showed\n%s", out.String())
			}
			top, bottom := rows[0].y-18, rows[len(rows)-1].y+18
			// The header's separator is the long line just above the
			// first row; the header's text is the band above it.
			hsep := -1
			for y := top; y > top-30; y-- {
				if x0, x1 := longestRun(img, y, sep); x1-x0 > 400 {
					hsep = y
					break
				}
			}
			if hsep < 0 {
				t.Fatal("no separator under the column headers")
			}
			// The side panel ends at the first long vertical line of
			// the separator's colour from the left.
			side := -1
			for x := winRect.Min.X + 60; x < winRect.Min.X+400 && side < 0; x++ {
				n := 0
				for y := top; y < bottom; y++ {
					if sameColor(img.At(x, y), sep) {
						n++
					}
				}
				if n > (bottom-top)*9/10 {
					side = x
				}
			}
			if side < 0 {
				t.Fatal("no line between the side panel and the queue")
			}
			regions := map[string]image.Rectangle{
				"column headers": image.Rect(side+2, hsep-26, winRect.Max.X-2, hsep-1),
				"rows":           image.Rect(side+2, top, winRect.Max.X-2, bottom),
				"side panel":     image.Rect(winRect.Min.X+2, hsep-26, side-2, bottom),
				"status bar":     image.Rect(winRect.Min.X+2, winRect.Max.Y-26, winRect.Max.X-2, winRect.Max.Y-2),
			}
			for name, r := range regions {
				texts := textRuns(img, r)
				if len(texts) == 0 {
					t.Errorf("%s: no text found in %v", name, r)
				}
				for _, tr := range texts {
					if tr.ratio < 4.5 {
						t.Errorf("%s: text at %v is %v on %v, %.2f:1, below 4.5:1", name, tr.at, tr.fg, tr.bg, tr.ratio)
					}
				}
				t.Logf("%s: %d pieces of text, lowest contrast %.2f:1", name, len(texts), lowest(texts))
			}
		})
	}
}

// screen is the X display's picture now.
func screen(ctx context.Context, t *testing.T, env []string) image.Image {
	t.Helper()
	cmd := exec.CommandContext(ctx, "xwd", "-root", "-silent")
	cmd.Env = env
	b, err := cmd.Output()
	if err != nil {
		t.Fatalf("xwd: %v", err)
	}
	img, err := decodeXWD(b)
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// keepShot writes img as NAME.png into BRAID_TEST_SHOTS, if set.
func keepShot(t *testing.T, img image.Image, name string) {
	dir := os.Getenv("BRAID_TEST_SHOTS")
	if dir == "" {
		return
	}
	f, err := os.Create(filepath.Join(dir, name+".png"))
	if err != nil {
		t.Log(err)
		return
	}
	defer f.Close()
	_ = png.Encode(f, img)
}

// textRun is one piece of text found on the screen: where, its colour,
// the background's, and their contrast.
type textRun struct {
	at     image.Rectangle
	fg, bg color.Color
	ratio  float64
}

func lowest(ts []textRun) float64 {
	m := math.Inf(1)
	for _, t := range ts {
		m = min(m, t.ratio)
	}
	return m
}

// textRuns finds the pieces of text in r: its lines (bands of rows
// holding pixels that differ from the region's most common colour, its
// background), and in each line the runs of columns with such pixels,
// split where 6 empty columns pass. A run with a line of 30 pixels of one
// colour other than the background is a progress bar, not text; one narrower
// than 4 pixels is a dot or a line, whose few pixels antialiasing never
// lets reach the text's colour: both are left out. Each run's background
// is the most common colour in its box (a selected item's, there), its
// colour the pixel farthest from it.
func textRuns(img image.Image, r image.Rectangle) []textRun {
	bg := commonColor(img, r)
	ink := func(x, y int) bool { return contrast(img.At(x, y), bg) > 1.1 }
	var out []textRun
	for _, line := range bands(r.Min.Y, r.Max.Y, 2, func(y int) bool {
		for x := r.Min.X; x < r.Max.X; x++ {
			if ink(x, y) {
				return true
			}
		}
		return false
	}) {
		for _, run := range bands(r.Min.X, r.Max.X, 6, func(x int) bool {
			for y := line[0]; y < line[1]; y++ {
				if ink(x, y) {
					return true
				}
			}
			return false
		}) {
			box := image.Rect(run[0], line[1], run[1], line[0])
			for x := run[0]; x < run[1]; x++ {
				for y := line[0]; y < line[1]; y++ {
					if ink(x, y) {
						box.Min.Y, box.Max.Y = min(box.Min.Y, y), max(box.Max.Y, y+1)
					}
				}
			}
			if box.Dy() < 4 || box.Dx() < 4 || solidRun(img, box, bg) >= 30 {
				continue
			}
			local := commonColor(img, box.Inset(-1))
			tr := textRun{at: box, bg: local, fg: local, ratio: 1}
			for x := box.Min.X; x < box.Max.X; x++ {
				for y := box.Min.Y; y < box.Max.Y; y++ {
					if c := contrast(img.At(x, y), local); c > tr.ratio {
						tr.ratio, tr.fg = c, img.At(x, y)
					}
				}
			}
			if tr.ratio > 1.1 {
				out = append(out, tr)
			}
		}
	}
	return out
}

// solidRun is the longest horizontal line of one colour other than bg
// in box.
func solidRun(img image.Image, box image.Rectangle, bg color.Color) int {
	best := 0
	for y := box.Min.Y; y < box.Max.Y; y++ {
		n := 0
		for x := box.Min.X; x < box.Max.X; x++ {
			c := img.At(x, y)
			switch {
			case sameColor(c, bg):
				n = 0
			case x > box.Min.X && sameColor(c, img.At(x-1, y)):
				n++
			default:
				n = 1
			}
			best = max(best, n)
		}
	}
	return best
}

// bands are the runs [from, to) of positions between lo and hi where
// has holds, joined across gaps shorter than gap.
func bands(lo, hi, gap int, has func(int) bool) [][2]int {
	var out [][2]int
	start, empty := -1, 0
	for i := lo; i < hi; i++ {
		switch {
		case has(i):
			if start < 0 {
				start = i
			}
			empty = 0
		case start >= 0:
			if empty++; empty >= gap {
				out = append(out, [2]int{start, i - empty + 1})
				start = -1
			}
		}
	}
	if start >= 0 {
		out = append(out, [2]int{start, hi - empty})
	}
	return out
}

// commonColor is the colour most pixels in r have.
func commonColor(img image.Image, r image.Rectangle) color.Color {
	n := map[color.RGBA]int{}
	var best color.RGBA
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			c := color.RGBAModel.Convert(img.At(x, y)).(color.RGBA)
			if n[c]++; n[c] > n[best] {
				best = c
			}
		}
	}
	return best
}

// contrast is WCAG 2's contrast ratio of two opaque colours, 1 to 21.
func contrast(a, b color.Color) float64 {
	l := func(c color.Color) float64 {
		r, g, b, _ := c.RGBA()
		lin := func(v uint32) float64 {
			s := float64(v) / 0xffff
			if s <= 0.04045 {
				return s / 12.92
			}
			return math.Pow((s+0.055)/1.055, 2.4)
		}
		return 0.2126*lin(r) + 0.7152*lin(g) + 0.0722*lin(b)
	}
	la, lb := l(a), l(b)
	if la < lb {
		la, lb = lb, la
	}
	return (la + 0.05) / (lb + 0.05)
}
