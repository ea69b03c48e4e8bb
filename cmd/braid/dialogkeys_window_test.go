//go:build !headless

package main

import (
	"bytes"
	"context"
	"image"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2/theme"

	"braid/engine/metalink"
	"braid/engine/mirrortest"
	"braid/engine/piece"
	"braid/queue"
	"braid/ui"
)

// TestWindowDialogKeysAfterAClick opens the Speed limit dialog of a
// running download in the real window (right click on its row, the
// menu's fourth item), clicks one of its radio buttons with the mouse
// (xdotool, through the X server) and presses Escape: the dialog must
// close and the limit stay as it was. Opened again, a rate typed, the
// "At most" radio button clicked and Enter pressed, the limit is set.
// Fyne's radio group took the focus on the click and ate both keys.
func TestWindowDialogKeysAfterAClick(t *testing.T) {
	xdotool := needXdotool(t)
	if _, err := exec.LookPath("xwd"); err != nil {
		t.Skip("xwd is not installed (Debian: apt-get install x11-apps); this test reads the real window's pixels with it")
	}
	tmp, bin, display := realWindow(t)
	data := mirrortest.Bytes(64<<20, 23)
	m := mirrortest.New(t, data, mirrortest.Rate(512<<10)) // runs while the test does
	dest := filepath.Join(tmp, "downloads")
	state := filepath.Join(tmp, "state")
	dump := filepath.Join(tmp, "texts.txt")
	for _, d := range []string{filepath.Join(tmp, "home"), dest, filepath.Join(tmp, "run")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	f, err := piece.Describe(context.Background(), bytes.NewReader(data), int64(len(data)), "keys.bin", 1<<20, 2)
	if err != nil {
		t.Fatal(err)
	}
	f.URLs = []metalink.URL{{URL: m.URL(), Priority: 1}}
	q, err := queue.Open(state)
	if err != nil {
		t.Fatal(err)
	}
	id, err := q.Add(m.URL(), dest, &metalink.Document{Version: 4, Files: []metalink.File{f}}, nil)
	q.Close()
	if err != nil {
		t.Fatal(err)
	}
	limit := func() int64 {
		q, err := queue.Open(state)
		if err != nil {
			return -1
		}
		defer q.Close()
		n, _ := q.Limit(id)
		return n
	}

	env := windowEnv(display, tmp, state, "BRAID_DUMP_TEXTS="+dump)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	var out syncBuffer
	startWindow(ctx, t, bin, env, &out)
	xdo := xdoRunner(ctx, t, xdotool, env, &out)
	keep := func(name string) { windowShot(ctx, t, env, name) }
	shows := func(what string, want bool, s string) {
		t.Helper()
		for end := time.Now().Add(30 * time.Second); time.Now().Before(end); time.Sleep(250 * time.Millisecond) {
			b, _ := os.ReadFile(dump)
			if strings.Contains(string(b), s) == want {
				return
			}
		}
		keep("dialogkeys-" + strings.ReplaceAll(what, " ", "-"))
		t.Fatalf("%s: the window's texts hold %q: %v, want %v\n%s", what, s, !want, want, out.String())
	}
	wid := strings.Fields(xdo("search", "--sync", "--name", "^Braid$"))[0]
	shows("the download", true, "keys.bin")
	track := ui.NewTheme().Color(theme.ColorNameInputBorder, theme.VariantLight)
	var bars []bar
	for end := time.Now().Add(30 * time.Second); len(bars) == 0 && time.Now().Before(end); time.Sleep(200 * time.Millisecond) {
		bars = findBars(screen(ctx, t, env), track)
	}
	if len(bars) == 0 {
		t.Fatal("no row with a progress bar on the screen")
	}
	const about = "may download:"
	openDialog := func() (entry image.Rectangle) {
		t.Helper()
		xdo("windowfocus", "--sync", wid)
		xdo("mousemove", "--sync", strconv.Itoa(max(bars[0].x0-200, 40)), strconv.Itoa(bars[0].y))
		xdo("click", "3")
		time.Sleep(400 * time.Millisecond)
		for range 4 { // Pause, Resume, Stop seeding, Speed limit…
			xdo("key", "Down")
		}
		xdo("key", "Return")
		shows("the dialog open", true, about)
		time.Sleep(300 * time.Millisecond)
		// The rate field: the one band of the entries' own colour (the
		// search box behind the dialog is shaded).
		input := ui.NewTheme().Color(theme.ColorNameInputBackground, theme.VariantLight)
		img := screen(ctx, t, env)
		for y := img.Bounds().Min.Y; y < img.Bounds().Max.Y; y++ {
			if x0, x1 := longestRun(img, y, input); x1-x0 >= 250 {
				if entry.Empty() {
					entry = image.Rect(x0, y, x1, y+1)
				}
				entry.Max.Y = y + 1
			}
		}
		if entry.Empty() {
			keep("dialogkeys-no-entry")
			t.Fatal("no rate field in the dialog on the screen")
		}
		return entry
	}

	// A click on the first radio button ("No limit of its own", two
	// lines above the field), then Escape.
	entry := openDialog()
	rowH := entry.Dy() + 4
	xdo("mousemove", "--sync", strconv.Itoa(entry.Min.X+14), strconv.Itoa(entry.Min.Y-rowH-rowH/2))
	xdo("click", "1")
	time.Sleep(300 * time.Millisecond)
	keep("dialogkeys-radio-clicked")
	xdo("key", "Escape")
	shows("Escape after a click on a radio button", false, about)
	if n := limit(); n != 0 {
		t.Errorf("Escape left the job a limit of %d", n)
	}

	// Again: a rate typed, "At most" (just above the field) clicked,
	// Enter.
	entry = openDialog()
	xdo("mousemove", "--sync", strconv.Itoa(entry.Min.X+40), strconv.Itoa(entry.Min.Y+entry.Dy()/2))
	xdo("click", "1")
	xdo("type", "--delay", "40", "200K")
	xdo("mousemove", "--sync", strconv.Itoa(entry.Min.X+14), strconv.Itoa(entry.Min.Y-rowH/2-2))
	xdo("click", "1")
	time.Sleep(300 * time.Millisecond)
	keep("dialogkeys-at-most-clicked")
	xdo("key", "Return")
	shows("Enter after a click on a radio button", false, about)
	for end := time.Now().Add(20 * time.Second); limit() != 200<<10; time.Sleep(200 * time.Millisecond) {
		if time.Now().After(end) {
			keep("dialogkeys-limit-not-set")
			t.Fatalf("the job's limit is %d after Enter, want %d\n%s", limit(), 200<<10, out.String())
		}
	}
}
