//go:build !headless

package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"image"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/app"
	"fyne.io/fyne/v2/driver/software"

	"braid/platform"
	"braid/queue"
	"braid/ui"
	"braid/ui/bridge"
)

const windowUsage = `usage: braid [--state DIR] [SOURCE...]

Opens the window and adds each SOURCE (a .meta4, .metalink or .torrent
file, or a link), showing the picker for documents with files to choose.
When Braid is already open, the sources are handed to it instead.

Flags:
`

// cmdWindow is `braid [SOURCE...]`: the window over the queue.
//
// Screenshot mode, for the Xvfb test and the README: with
// BRAID_SCREENSHOT=out.png the window adds the sources without showing the
// picker, waits until a download is visibly under way (a job at 20% or
// more, or finished) and at least BRAID_SCREENSHOT_AFTER (a Go duration,
// default 2s) has passed, shows that job's segment map, writes the
// window's canvas to out.png and quits. BRAID_SCREENSHOT_TIMEOUT (default
// 2m) bounds the wait; on timeout it captures what it has and exits 1.
//
// BRAID_AUTOADD=1 is a switch for automated runs (the single-instance test):
// every source, from the command line or handed over by a second `braid`,
// is added with the picker's default selection instead of waiting for a
// click in the picker. People never need it.
func cmdWindow(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fset := flag.NewFlagSet("braid", flag.ContinueOnError)
	fset.SetOutput(stderr)
	fset.Usage = func() {
		fmt.Fprint(stderr, windowUsage)
		fset.PrintDefaults()
		fmt.Fprint(stderr, "\n"+usage)
	}
	stateFlag := fset.String("state", "", "the queue's `folder` (default: BRAID_STATE, else the user config folder)")
	if err := fset.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if err := checkSources(fset.Args()); err != nil {
		fmt.Fprintf(stderr, "braid: %v\n", err)
		return 2
	}
	cwd, _ := os.Getwd()
	sources := absSources(fset.Args(), cwd)

	shot, err := screenshotFromEnv(os.Getenv)
	if err != nil {
		fmt.Fprintf(stderr, "braid: %v\n", err)
		return 2
	}
	autoAdd, err := autoAddFromEnv(os.Getenv)
	if err != nil {
		fmt.Fprintf(stderr, "braid: %v\n", err)
		return 2
	}

	// One window per user: a second `braid SOURCE` (a double-click on a
	// .meta4) hands its sources to the running one and exits.
	inst, handed, err := handOver(ctx, platform.SocketPath(os.Getenv), sources, cwd)
	if handed {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "braid: %v\n", err)
		if inst == nil && !errors.Is(err, errListen) {
			return 1
		}
	}
	if why := noDisplay(os.Getenv); why != "" {
		// Checked after the hand-off: a running window takes sources
		// from a shell without a display.
		if inst != nil {
			inst.Close()
		}
		fmt.Fprintf(stderr, "braid: %s\n", why)
		return 1
	}

	dir, err := queue.Dir(*stateFlag)
	if err != nil {
		fmt.Fprintf(stderr, "braid: %v\n", err)
		return 1
	}
	q, err := queue.Open(dir)
	if err != nil {
		fmt.Fprintf(stderr, "braid: %v\n", err)
		return 1
	}
	defer q.Close()
	closeLog, err := openLog(dir)
	if err != nil {
		fmt.Fprintf(stderr, "braid: %v\n", err)
	}
	defer closeLog()

	ui.LoadTranslations()
	back := bridge.New(q, nil)
	commit, modified := buildRevision()
	a := app.NewWithID(platform.AppID)
	a.SetIcon(ui.AppIcon)
	a.Settings().SetTheme(ui.NewTheme())
	// The platform's opener waits for the desktop's answer, so an open
	// that fails (no application for the type) is said in the window.
	w := ui.New(a, back, ui.Options{AutoStart: autoAdd || shot.path != "", Version: version, Commit: commit, CommitModified: modified,
		OpenFile: platform.OpenFile})
	s, err := back.Settings()
	if err != nil {
		fmt.Fprintf(stderr, "braid: %v\n", err)
	}
	if err := back.Start(s.StartOnLaunch || shot.path != ""); err != nil {
		fmt.Fprintf(stderr, "braid: %v\n", err)
	}
	w.SetupTray()
	w.Start()
	for _, n := range q.Notices() {
		fmt.Fprintln(stderr, "braid:", n)
	}
	// One after the other, in the order given, as a hand-over's.
	w.OpenSources(sources)

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan struct{})
	var served chan struct{}
	if inst != nil {
		served = make(chan struct{})
		go func() {
			defer close(served)
			_ = inst.Serve(ctx, func(h platform.Handoff) (platform.Answer, error) {
				if h.Add != nil {
					return back.TakeLink(ctx, *h.Add)
				}
				if h.Wake {
					back.Wake()
					return platform.Answer{}, nil
				}
				w.OpenSources(absSources(h.Args, h.Dir))
				fyne.Do(w.ShowWindow)
				return platform.Answer{}, nil
			})
		}()
	}
	code := 0
	shotDone := make(chan struct{})
	go func() {
		defer close(shotDone)
		if shot.path != "" {
			if err := shot.take(ctx, w); err != nil {
				fmt.Fprintf(stderr, "braid: screenshot: %v\n", err)
				code = 1
			}
			fyne.Do(w.Quit)
			return
		}
		select {
		case <-ctx.Done(): // Ctrl-C or SIGTERM
			fyne.Do(w.Quit)
		case <-done:
		}
	}()
	a.Run()
	// Shut down from the outside in: no more handoffs, then the window's
	// goroutines, then the runner (the job in hand goes back to queued).
	close(done)
	cancel()
	if inst != nil {
		<-served
		_ = inst.Close()
	}
	<-shotDone
	w.Stop()
	if err := back.Close(); err != nil {
		fmt.Fprintf(stderr, "braid: %v\n", err)
	}
	return code
}

// handoverTimeout bounds a second start's hand-over to the running
// window: it says so and exits rather than wait for a window that hangs.
// A variable for the tests.
var handoverTimeout = 10 * time.Second

// errListen marks a failure to listen for later starts: the window opens
// all the same, it only cannot take sources from a second start.
var errListen = errors.New("a second start of Braid cannot reach this window")

// handOver makes this process the user's running Braid (inst), or hands
// sources to the one that runs (handed). A running Braid that does not
// answer within handoverTimeout, or refuses, is an error that the second
// start reports before it exits: it never opens a second window over the
// same queue. Beside `braid queue run`, which takes no sources, the window
// opens without an instance; so it does when it cannot listen (an error
// wrapping errListen).
func handOver(ctx context.Context, sock string, sources []string, cwd string) (inst *platform.Instance, handed bool, err error) {
	// Twice: a running Braid that quits between our Listen and our
	// Forward leaves the place to us.
	for try := 0; try < 2; try++ {
		inst, err = platform.Listen(sock)
		if err == nil {
			return inst, false, nil
		}
		if !errors.Is(err, platform.ErrRunning) {
			return nil, false, fmt.Errorf("%w: %w", errListen, err)
		}
		hctx, cancel := context.WithTimeout(ctx, handoverTimeout)
		_, err = platform.Forward(hctx, sock, platform.Handoff{Args: sources, Dir: cwd})
		cancel()
		switch {
		case err == nil:
			return nil, true, nil
		case errors.Is(err, platform.ErrElsewhere):
			return nil, false, nil // braid queue run holds the socket
		case errors.Is(err, platform.ErrNotRunning):
			continue
		case errors.Is(err, platform.ErrRefused):
			return nil, false, fmt.Errorf("the open Braid did not take %s: %w", what(sources), err)
		}
		return nil, false, fmt.Errorf("the open Braid does not answer, so %s did not reach it; close it and try again (%w)", what(sources), err)
	}
	return nil, false, fmt.Errorf("another Braid was starting or quitting at the same time; try again (%w)", err)
}

// what names the sources of a hand-over for a sentence.
func what(sources []string) string {
	switch len(sources) {
	case 0:
		return "the request to show its window"
	case 1:
		return sources[0]
	}
	return fmt.Sprintf("the %d sources", len(sources))
}

// absSources makes file sources absolute against dir; links stay as they
// are.
func absSources(args []string, dir string) []string {
	out := make([]string, 0, len(args))
	for _, a := range args {
		if a == "" {
			continue
		}
		if !strings.Contains(a, "://") && !strings.HasPrefix(a, "magnet:") && !filepath.IsAbs(a) {
			a = filepath.Join(dir, a)
		}
		out = append(out, a)
	}
	return out
}

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
