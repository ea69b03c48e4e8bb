//go:build !headless

package main

import (
	"context"
	"image"
	"image/color"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2/theme"

	"braid/engine/metalink"
	"braid/engine/mirrortest"
	"braid/queue"
	"braid/ui"
)

// TestWindowStatusLineWhole runs the real 1100×720 window, in English and
// in German, over a queue with a job whose one mirror refuses
// connections, selects its row (an xdotool click) and measures the
// screen: the details pane's status line, which the row's State cell
// cuts ("Wartet: Der Server hat die Verbi…"), is the place to read it
// whole, so in German, where it is longer than the pane is wide, it is
// drawn on two lines rather than cut. The lines are found by the
// waiting colour's pixels: the header's first band of them is measured
// against the row's own line of the same text.
func TestWindowStatusLineWhole(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, lang, waiting string
		wrapped             bool // the line is too long for one line at 1100 px
	}{
		{"English", "en_US.UTF-8", "Waiting: ", false},
		{"German", "de_DE.UTF-8", "Wartet: ", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			statusLineWhole(t, tc.lang, tc.waiting, tc.wrapped)
		})
	}
}

func statusLineWhole(t *testing.T, locale, waiting string, wrapped bool) {
	xdotool := needXdotool(t)
	needXwd(t)
	r := newWindowRig(t, "dest")
	r.fillQueue(t, func(q *queue.Queue) { addRefused(t, q, r.dest, "refused.iso", 5<<20) })

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	env := r.env("LANG="+locale, "LANGUAGE=", "LC_ALL=", "LC_MESSAGES=")
	var out syncBuffer
	startWindow(ctx, t, r.bin, env, &out)
	xdo := xdoRunner(ctx, t, xdotool, env, &out)
	wid := strings.Fields(xdo("search", "--sync", "--name", "^Braid$"))[0]
	waitWindowText(ctx, t, env, r.dump, &out, 60*time.Second, "statusline-", "waiting", waiting)
	track := ui.NewTheme().Color(theme.ColorNameInputBorder, theme.VariantLight)
	var bars []bar
	for end := time.Now().Add(30 * time.Second); len(bars) < 1 && time.Now().Before(end); time.Sleep(200 * time.Millisecond) {
		bars = findBars(screen(ctx, t, env), track)
	}
	if len(bars) < 1 {
		t.Fatal("the row never showed")
	}
	row := bars[0]
	xdo("windowfocus", "--sync", wid)
	xdo("mousemove", "--sync", strconv.Itoa(row.x0-150), strconv.Itoa(row.y))
	xdo("click", "1")
	// The status line says when the next try is: wait until it does, in
	// the row and in the pane, so both are drawn in the waiting colour.
	waitWindowText(ctx, t, env, r.dump, &out, 20*time.Second, "statusline-", "details", "127.0.0.1:9")
	time.Sleep(time.Second)
	warn := ui.NewTheme().Color(theme.ColorNameWarning, theme.VariantLight)
	var img image.Image
	var rowBand, head [2]int
	// The line ends with the time to the next try, which counts down and
	// grows as the tries back off ("in 9 s", "in 1 min 4 s"): the German
	// line is longer than the pane for most of them, not for all, so the
	// screen is read until the line is drawn as expected or 30 s pass.
	for end := time.Now().Add(30 * time.Second); time.Now().Before(end); time.Sleep(300 * time.Millisecond) {
		img = screen(ctx, t, env)
		b := img.Bounds()
		// The row's State cell, right of its progress bar (the state
		// icon, taller than text, is at the row's left).
		rb := bands(row.y-14, row.y+14, 4, func(y int) bool { return nearColor(img, row.x1+4, b.Max.X, y, warn) })
		// The pane's header: below the row, down to the middle of the
		// window, where the tabs' lists begin.
		hb := bands(row.y+16, b.Max.Y*3/4, 9, func(y int) bool { return nearColor(img, b.Min.X, b.Max.X, y, warn) })
		if len(rb) > 0 && len(hb) > 0 {
			rowBand, head = rb[0], hb[0]
			if two := head[1]-head[0] >= (rowBand[1]-rowBand[0])*17/10; two == wrapped {
				break
			}
		}
	}
	lang := "en"
	if strings.HasPrefix(locale, "de") {
		lang = "de"
	}
	keepShot(t, img, "statusline-"+lang)
	if rowBand == [2]int{} || head == [2]int{} {
		t.Fatalf("no text in the waiting colour in the row (%v) or in the pane's header (%v)\n%s", rowBand, head, out.String())
	}
	line, got := rowBand[1]-rowBand[0], head[1]-head[0]
	t.Logf("the row's state is %d px high (y %d–%d); the pane's status line %d px (y %d–%d)", line, rowBand[0], rowBand[1], got, head[0], head[1])
	if wrapped && got < line*17/10 {
		t.Errorf("the status line is drawn on one line (%d px high, a line is %d): a text longer than the pane is cut, so the row's cut state cannot be read whole anywhere\n%s", got, line, out.String())
	}
	if !wrapped && got >= line*17/10 {
		t.Errorf("the status line takes %d px, more than a line (%d), though it fits on one", got, line)
	}
}

// nearColor reports whether any pixel of line y between x0 and x1 is
// within a small distance of c: the cores of a text's strokes drawn in c.
func nearColor(img image.Image, x0, x1, y int, c color.Color) bool {
	r0, g0, b0, _ := c.RGBA()
	for x := x0; x < x1; x++ {
		r, g, b, _ := img.At(x, y).RGBA()
		if absDiff(r>>8, r0>>8)+absDiff(g>>8, g0>>8)+absDiff(b>>8, b0>>8) < 40 {
			return true
		}
	}
	return false
}

func absDiff(a, b uint32) uint32 {
	if a > b {
		return a - b
	}
	return b - a
}

// TestWindowLimitReadable runs the real 1100×720 window, in English and
// in German, over a download running under its own speed limit, slower
// than its mirror: the row's Speed cell cuts "199 KiB/s ≤ 200 KiB/s" to
// the speed and a "…", so the selected row's status line in the details
// pane is where the limit is read, beside the speed. Screenshots show
// both (statusline-limit-en, -de).
func TestWindowLimitReadable(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, locale, running string }{
		{"English", "en_US.UTF-8", "Downloading · "},
		{"German", "de_DE.UTF-8", "Lädt herunter · "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			limitReadable(t, tc.locale, tc.running)
		})
	}
}

func limitReadable(t *testing.T, locale, running string) {
	xdotool := needXdotool(t)
	needXwd(t)
	r := newWindowRig(t, "dest")
	data := mirrortest.Bytes(64<<20, 17)
	m := mirrortest.New(t, data, mirrortest.Rate(512<<10)) // two minutes: it runs while the test does
	q, err := queue.Open(r.state)
	if err != nil {
		t.Fatal(err)
	}
	doc := &metalink.Document{Version: 4, Files: []metalink.File{{Name: "limited.bin", Size: int64(len(data)), URLs: []metalink.URL{{URL: m.URL(), Priority: 1}}}}}
	id, err := q.Add(queue.NewJob{Source: m.URL(), Dest: r.dest, Doc: doc})
	if err == nil {
		err = q.SetJob(id, queue.Limit(200<<10))
	}
	q.Close()
	if err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	env := r.env("LANG="+locale, "LANGUAGE=", "LC_ALL=", "LC_MESSAGES=")
	var out syncBuffer
	startWindow(ctx, t, r.bin, env, &out)
	xdo := xdoRunner(ctx, t, xdotool, env, &out)
	wid := strings.Fields(xdo("search", "--sync", "--name", "^Braid$"))[0]
	waitWindowText(ctx, t, env, r.dump, &out, 60*time.Second, "statusline-limit-", "the limit in the row", "≤ 200 KiB/s")
	row := findRow(ctx, t, env)
	xdo("windowfocus", "--sync", wid)
	xdo("mousemove", "--sync", strconv.Itoa(row.x0-150), strconv.Itoa(row.y))
	xdo("click", "1")
	// The status line, once the pane shows the job running with a speed.
	var line string
	for end := time.Now().Add(30 * time.Second); line == "" && time.Now().Before(end); time.Sleep(300 * time.Millisecond) {
		b, _ := os.ReadFile(r.dump)
		for _, l := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(l, running) && strings.Contains(l, "KiB/s ≤ 200 KiB/s") {
				line = l
			}
		}
	}
	time.Sleep(time.Second)
	lang := "en"
	if strings.HasPrefix(locale, "de") {
		lang = "de"
	}
	keepShot(t, screen(ctx, t, env), "statusline-limit-"+lang)
	if line == "" {
		b, _ := os.ReadFile(r.dump)
		t.Fatalf("the selected job's status line never showed its speed beside its limit:\n%s\n%s", b, out.String())
	}
	t.Logf("the status line: %q", line)
}
