//go:build !headless

package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/app"

	"braid/engine/source"
	"braid/platform"
	"braid/queue"
	"braid/ui"
)

const windowUsage = `usage: braid [--state DIR] [SOURCE...]
       braid --remote URL [--remote-secret-file FILE] [SOURCE...]

Opens the window and adds each SOURCE (a .meta4, .metalink or .torrent
file, or a link), showing the picker for documents with files to choose.
When Braid is already open, the sources are handed to it instead.

With --remote, the window drives the downloads of an aria2 (aria2c
--enable-rpc) or a braid queue run --rpc-listen at URL over aria2's
JSON-RPC instead of this computer's queue. Its secret comes from the first
line of --remote-secret-file, else from BRAID_REMOTE_SECRET: never from the
command line, where other users see it.

Flags:
`

// cmdWindow is `braid [SOURCE...]`: the window over the queue.
func cmdWindow(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fset := flag.NewFlagSet("braid", flag.ContinueOnError)
	fset.SetOutput(stderr)
	fset.Usage = func() {
		fmt.Fprint(stderr, windowUsage)
		fset.PrintDefaults()
		fmt.Fprint(stderr, "\n"+usage)
	}
	stateFlag := fset.String("state", "", "the queue's `folder` (default: BRAID_STATE, else the user config folder)")
	remoteFlag := fset.String("remote", "", "drive the downloads of the aria2 JSON-RPC at `URL` (http://host:6800/jsonrpc) instead of this computer's")
	remoteSecretFile := fset.String("remote-secret-file", "", "read --remote's secret from the first line of `FILE` (default: BRAID_REMOTE_SECRET)")
	if err := fset.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if *remoteFlag != "" || *remoteSecretFile != "" {
		return cmdRemoteWindow(ctx, *remoteFlag, *remoteSecretFile, *stateFlag, fset.Args(), stderr)
	}
	if err := checkSources(fset.Args()); err != nil {
		fmt.Fprintf(stderr, "braid: %v\n", err)
		return 2
	}
	cwd, _ := os.Getwd()
	sources := absSources(fset.Args(), cwd)

	var modes windowModes = noModes{}
	if testModes != nil {
		var err error
		if modes, err = testModes(os.Getenv); err != nil {
			fmt.Fprintf(stderr, "braid: %v\n", err)
			return 2
		}
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
	keep := &connKeeper{q: q, dir: dir}
	f := &front{modes: modes, stderr: stderr, keep: keep, inst: inst}
	return f.run(ctx, keep.chosen(stderr), sources)
}

// newApp makes the app, in the user's language, with Braid's theme.
func newApp() fyne.App {
	ui.LoadTranslations()
	a := app.NewWithID(platform.AppID)
	a.SetIcon(ui.AppIcon)
	a.Settings().SetTheme(ui.NewTheme())
	return a
}

// newUIWindow makes a's window over back (taking reuse over when it is
// not nil), with the test modes' options when a test set them.
func newUIWindow(a fyne.App, back ui.Backend, modes windowModes, reuse fyne.Window) *ui.Window {
	commit, modified := buildRevision()
	// The platform's opener waits for the desktop's answer, so an open
	// that fails (no application for the type) is said in the window.
	opts := ui.Options{Version: version, Commit: commit, CommitModified: modified, OpenFile: platform.OpenFile, Window: reuse}
	modes.Options(&opts)
	return ui.New(a, back, opts)
}

// runModes runs the test modes' script on w when a test set one, and
// quits the window when the script ends or ctx does (Ctrl-C, SIGTERM).
// Call ended once the window's loop has returned and ctx is cancelled: it
// waits for the script and returns the exit status, 1 when the script
// failed.
func runModes(ctx context.Context, w *ui.Window, modes windowModes, stderr io.Writer) (ended func() int) {
	done := make(chan struct{})
	modesDone := make(chan struct{})
	code := 0
	go func() {
		defer close(modesDone)
		if took, err := modes.Run(ctx, w); took {
			if err != nil {
				fmt.Fprintf(stderr, "braid: %v\n", err)
				code = 1
			}
			fyne.Do(w.Quit)
			return
		}
		select {
		case <-ctx.Done():
			fyne.Do(w.Quit)
		case <-done:
		}
	}()
	return func() int {
		close(done)
		<-modesDone
		return code
	}
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
		if s := source.Of(a); s.Local() && s.Scheme() == "" && !filepath.IsAbs(a) {
			a = filepath.Join(dir, a)
		}
		out = append(out, a)
	}
	return out
}

// testModes reads the window's modes for automated runs from the
// environment (a screenshot, sources added without the picker, the texts
// shown written to a file: package testmode). Only a build for tests sets
// it: braid built with the braidtest tag (testmode.go) and this package's
// test binary; a shipped braid has none of the modes.
var testModes func(getenv func(string) string) (windowModes, error)

// windowModes are the modes testModes reads.
type windowModes interface {
	// Options sets the window's options the modes need.
	Options(o *ui.Options)
	// StartQueue reports whether the queue runs from the start whatever
	// the settings say.
	StartQueue() bool
	// Run does what the modes do while the window is open and reports
	// whether it did anything: then the window quits, and braid exits 1
	// if it failed.
	Run(ctx context.Context, w *ui.Window) (bool, error)
}

// noModes is a shipped braid's windowModes: none.
type noModes struct{}

func (noModes) Options(*ui.Options)                           {}
func (noModes) StartQueue() bool                              { return false }
func (noModes) Run(context.Context, *ui.Window) (bool, error) { return false, nil }
