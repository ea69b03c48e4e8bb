// Package testmode is the window's modes for automated runs, read from the
// environment. Only builds for tests have them: braid built with the
// braidtest tag (the tests' buildBraid) and cmd/braid's test binary, which
// runs as braid.exe on Windows. A shipped braid links none of this.
//
//   - BRAID_SCREENSHOT=out.png: the window adds the sources without showing
//     the picker, waits until a download is visibly under way (a job at 20%
//     or more, or finished) and at least BRAID_SCREENSHOT_AFTER (a Go
//     duration, default 2s) has passed, shows that job's segment map,
//     writes the window's canvas to out.png and quits.
//     BRAID_SCREENSHOT_TIMEOUT (default 2m) bounds the wait; on timeout it
//     captures what it has and braid exits 1. The README's screenshot is
//     taken so (cmd/braid's TestWindow).
//   - BRAID_AUTOADD=1: every source, from the command line or handed over
//     by a second braid, is added with the picker's default selection
//     instead of waiting for a click in the picker.
//   - BRAID_DUMP_TEXTS=file: the texts the window shows are written to
//     file, one a line, within half a second of each change: how a test
//     of the real window reads what a user reads. While a file named as
//     it with ".hold" added exists, the window's texts are not read (a
//     benchmark measuring the idle window's own CPU makes one).
package testmode

import (
	"context"
	"fmt"
	"image"
	"image/png"
	"os"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/software"

	"braid/ui"
)

// Modes are the modes the environment asks for; the zero value is none.
type Modes struct {
	autoAdd bool
	shot    screenshot
	dump    string // BRAID_DUMP_TEXTS

	shown atomic.Pointer[ui.Window] // the window shown now (Follow)
}

// Follow makes the modes watch w, the window that took over the one
// they ran on (the window switched to another computer's downloads).
func (m *Modes) Follow(w *ui.Window) { m.shown.Store(w) }

// FromEnv reads the modes from getenv; a value it cannot read is an error
// that names the variable.
func FromEnv(getenv func(string) string) (*Modes, error) {
	m := &Modes{dump: getenv("BRAID_DUMP_TEXTS")}
	var err error
	if m.autoAdd, err = autoAddFromEnv(getenv); err != nil {
		return nil, err
	}
	if m.shot, err = screenshotFromEnv(getenv); err != nil {
		return nil, err
	}
	return m, nil
}

// Options sets the window's options the modes need: adding without the
// picker.
func (m *Modes) Options(o *ui.Options) {
	o.AutoStart = o.AutoStart || m.autoAdd || m.shot.path != ""
}

// StartQueue reports whether the queue runs from the start whatever the
// settings say: a screenshot waits for a download under way.
func (m *Modes) StartQueue() bool { return m.shot.path != "" }

// Run starts writing the window's texts, if asked to, takes the
// screenshot, if one is asked for, and reports whether it did: the window
// quits after it.
func (m *Modes) Run(ctx context.Context, w *ui.Window) (bool, error) {
	m.shown.CompareAndSwap(nil, w)
	if m.dump != "" {
		go dumpTexts(m.dump, m.shown.Load)
	}
	if m.shot.path == "" {
		return false, nil
	}
	// The window quits after the screenshot: one that does not end soon
	// after writes where it hangs, for the test waiting on it, and exits.
	defer time.AfterFunc(quitWithin, func() {
		fmt.Fprintf(os.Stderr, "braid: still running %s after the screenshot; its goroutines:\n", quitWithin)
		_ = pprof.Lookup("goroutine").WriteTo(os.Stderr, 2)
		os.Exit(3)
	})
	if err := m.shot.take(ctx, w); err != nil {
		return true, fmt.Errorf("screenshot: %w", err)
	}
	return true, nil
}

// quitWithin is how long a window may take to quit after its screenshot.
const quitWithin = 45 * time.Second

// autoAddFromEnv reads BRAID_AUTOADD: unset or empty is off, otherwise a
// boolean as strconv.ParseBool reads it.
func autoAddFromEnv(getenv func(string) string) (bool, error) {
	raw := getenv("BRAID_AUTOADD")
	if raw == "" {
		return false, nil
	}
	on, err := strconv.ParseBool(raw)
	if err != nil {
		return false, fmt.Errorf("BRAID_AUTOADD=%q: want 1 or 0", raw)
	}
	return on, nil
}

// dumpEvery is how often dumpTexts looks at the window's texts.
const dumpEvery = 500 * time.Millisecond

// dumpTexts writes the window's texts to path whenever they change, until
// the app quits (the process ends with it). It looks twice a second and
// writes only what differs from the last file: a change is on file within
// half a second whatever made it (a reading of the queue, a dialog opened
// by a key), and a window that stays the same costs a look, not a write.
// The window needs no hook for it; only test builds have it. While
// path.hold exists it does not look.
func dumpTexts(path string, shown func() *ui.Window) {
	var last string
	for ; ; time.Sleep(dumpEvery) {
		if _, err := os.Stat(path + ".hold"); err == nil {
			continue
		}
		var texts string
		fyne.DoAndWait(func() {
			w := shown()
			w.Locked(func() { texts = strings.Join(w.Texts(), "\n") + "\n" })
		})
		if texts != last {
			tmp := path + ".tmp"
			if err := os.WriteFile(tmp, []byte(texts), 0o644); err == nil && os.Rename(tmp, path) == nil {
				last = texts
			}
		}
	}
}

// screenshot is the screenshot mode's settings; path "" means off.
type screenshot struct {
	path           string
	after, timeout time.Duration
}

func screenshotFromEnv(getenv func(string) string) (screenshot, error) {
	s := screenshot{path: getenv("BRAID_SCREENSHOT"), after: 2 * time.Second, timeout: 2 * time.Minute}
	for _, v := range []struct {
		name string
		d    *time.Duration
	}{{"BRAID_SCREENSHOT_AFTER", &s.after}, {"BRAID_SCREENSHOT_TIMEOUT", &s.timeout}} {
		if raw := getenv(v.name); raw != "" {
			d, err := time.ParseDuration(raw)
			if err != nil || d < 0 {
				return s, fmt.Errorf("%s=%q: want a duration such as 3s", v.name, raw)
			}
			*v.d = d
		}
	}
	return s, nil
}

// screenshotProgress is how far a download must be to count as visibly
// under way.
const screenshotProgress = 0.2

// take waits until a download is visibly under way, shows its segment map
// and writes the window to s.path.
func (s screenshot) take(ctx context.Context, w *ui.Window) error {
	// A window that stops answering (its UI goroutine stuck) would keep
	// the wait below from seeing its own timeout: past it, every
	// goroutine's stack is written out, for the test that waits on us.
	// A timer, not a check on return: a UI goroutine stuck for good can
	// also block fyne.Do, and so this function, once Fyne's queue is full.
	stuck := s.timeout + 30*time.Second
	ctx, cancel := context.WithTimeout(ctx, stuck)
	defer cancel()
	defer time.AfterFunc(stuck, func() {
		fmt.Fprintf(os.Stderr, "braid: the window did not answer for %s; its goroutines:\n", stuck)
		_ = pprof.Lookup("goroutine").WriteTo(os.Stderr, 2)
	}).Stop()
	start := time.Now()
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	timeout := time.NewTimer(s.timeout)
	defer timeout.Stop()
	ready, shown := false, false
	for !ready || !shown {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-timeout.C:
			_ = s.write(ctx, w)
			return fmt.Errorf("no download under way after %s", s.timeout)
		case <-tick.C:
		}
		wasReady := ready
		onUI(ctx, func() {
			// The running job is the picture; a finished one will do
			// when nothing runs any more.
			var best ui.Job
			for _, j := range w.Jobs() {
				if j.State == ui.Running && j.Progress() >= screenshotProgress {
					best = j
					break
				}
				if j.State == ui.Done && best.ID == 0 {
					best = j
				}
			}
			if best.State == ui.Done && slices.ContainsFunc(w.Jobs(), func(j ui.Job) bool { return j.State.Live() }) {
				best = ui.Job{}
			}
			ready = best.ID != 0 && time.Since(start) >= s.after
			if ready {
				if w.Selected() != best.ID {
					w.Select(best.ID)
				}
				w.Details.Tabs.Select(w.Details.SegmentsTab)
			}
		})
		if ctx.Err() != nil {
			return ctx.Err()
		}
		// One more tick after the map is chosen, so it has been drawn
		// from a fresh snapshot.
		shown = ready && wasReady
	}
	return s.write(ctx, w)
}

// onUI runs f on the UI goroutine and waits for it, or for ctx: once the
// app has quit, nothing runs f.
func onUI(ctx context.Context, f func()) {
	done := make(chan struct{})
	fyne.Do(func() {
		defer close(done)
		f()
	})
	select {
	case <-done:
	case <-ctx.Done():
	}
}

func (s screenshot) write(ctx context.Context, w *ui.Window) error {
	res := make(chan error, 1)
	onUI(ctx, func() { res <- s.capture(w) })
	select {
	case err := <-res:
		return err
	default:
		return fmt.Errorf("the window closed before the screenshot: %w", ctx.Err())
	}
}

// capture writes the window to s.path; it runs on the UI goroutine.
func (s screenshot) capture(w *ui.Window) error {
	img := w.Win.Canvas().Capture()
	if uniform(img) {
		img = softwareCapture(w.Win)
	}
	f, err := os.Create(s.path)
	if err != nil {
		return err
	}
	if err := png.Encode(f, img); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// uniform reports whether every pixel of img is the same: what the GL
// driver's Capture returns where the front buffer cannot be read back (Mesa
// on Xvfb).
func uniform(img image.Image) bool {
	b := img.Bounds()
	first := img.At(b.Min.X, b.Min.Y)
	for y := b.Min.Y; y < b.Max.Y; y += 3 {
		for x := b.Min.X; x < b.Max.X; x += 3 {
			if img.At(x, y) != first {
				return false
			}
		}
	}
	return true
}

// softwareCapture draws the window's content with Fyne's software painter
// at the window's size and scale, then gives the content back to the
// window.
func softwareCapture(win fyne.Window) image.Image {
	content := win.Content()
	c := software.NewCanvas()
	c.SetPadded(win.Padded())
	c.SetScale(win.Canvas().Scale())
	c.SetContent(content)
	c.Resize(win.Canvas().Size())
	img := c.Capture()
	win.SetContent(content)
	return img
}
