//go:build !headless

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"

	"fyne.io/fyne/v2"

	"braid/platform"
	"braid/queue"
	"braid/ui"
	"braid/ui/bridge"
	"braid/ui/remote"
)

// remoteSecretEnv holds --remote's secret when no file is given.
const remoteSecretEnv = "BRAID_REMOTE_SECRET"

// cmdRemoteWindow is `braid --remote URL [SOURCE...]`: the window over the
// downloads of an aria2 JSON-RPC daemon at URL (package ui/remote). It
// holds no local queue and takes no hand-overs: a second `braid SOURCE`
// goes to the user's own window, not to a remote one. Its side panel
// lists the saved connections beside URL, to switch between them; the
// state folder holds the log and those connections.
func cmdRemoteWindow(ctx context.Context, endpoint, secretFile, state string, args []string, stderr io.Writer) int {
	if endpoint == "" {
		fmt.Fprintln(stderr, "braid: --remote-secret-file needs --remote URL")
		return 2
	}
	s := secret{fileFlag: "--remote-secret-file", file: secretFile, env: remoteSecretEnv}
	key, err := s.get(os.Getenv)
	if err != nil {
		fmt.Fprintf(stderr, "braid: %v\n", err)
		return 2
	}
	if err := checkSources(args); err != nil {
		fmt.Fprintf(stderr, "braid: %v\n", err)
		return 2
	}
	cwd, _ := os.Getwd()
	sources := absSources(args, cwd)
	link, err := remote.Normalize(endpoint)
	if err != nil {
		fmt.Fprintf(stderr, "braid: %v\n", err)
		return 2
	}

	var modes windowModes = noModes{}
	if testModes != nil {
		if modes, err = testModes(os.Getenv); err != nil {
			fmt.Fprintf(stderr, "braid: %v\n", err)
			return 2
		}
	}
	if why := noDisplay(os.Getenv); why != "" {
		fmt.Fprintf(stderr, "braid: %s\n", why)
		return 1
	}
	f := &front{modes: modes, stderr: stderr}
	if dir, err := queue.Dir(state); err == nil {
		if closeLog, err := openLog(dir); err == nil {
			defer closeLog()
		}
		f.keep = &connKeeper{dir: dir, given: link, session: map[string]string{link: key}}
	}
	return f.run(ctx, link, sources)
}

// front is the window over this computer's downloads or another
// computer's, switched in place: one fyne.Window, a new ui.Window over
// each backend, the one before stopped and let go of.
type front struct {
	modes  windowModes
	stderr io.Writer
	keep   *connKeeper        // nil: no connections (no state folder)
	inst   *platform.Instance // the hand-overs; nil with --remote
	app    fyne.App

	mu        sync.Mutex
	w         *ui.Window // the window shown now
	cur       shown      // its downloads
	switching bool
	closing   sync.WaitGroup // windows and backends being let go of
	opened    *queue.Queue   // this computer's queue, opened by a switch with --remote
}

// shown is the downloads a window shows: this computer's (local) or a
// daemon's (remote).
type shown struct {
	back   ui.Backend
	local  *bridge.Backend
	remote *remote.Backend
}

func (s shown) close() error {
	if s.local != nil {
		return s.local.Close()
	}
	if s.remote != nil {
		return s.remote.Close()
	}
	return nil
}

func (s shown) title() string {
	if s.remote != nil {
		return "Braid — " + s.remote.Endpoint()
	}
	return "Braid"
}

// open makes the backend for the downloads at link ("" this computer's:
// the queue's runner, started as the settings say). warn is a problem it
// has that leaves it shown all the same (the queue run by another Braid).
func (f *front) open(link string) (s shown, warn, err error) {
	if link != "" {
		var secret string
		if f.keep != nil {
			secret = f.keep.secret(link)
		}
		r, err := remote.New(link, secret)
		if err != nil {
			return shown{}, nil, err
		}
		return shown{back: r, remote: r}, nil, nil
	}
	if f.keep == nil {
		return shown{}, nil, errors.New("this computer's queue cannot be found: start braid without --remote to see its downloads")
	}
	q := f.keep.queue()
	if q == nil { // --remote: the queue opened now, held until the end
		var err error
		if q, err = queue.Open(f.keep.dir); err != nil {
			return shown{}, nil, err
		}
		f.keep.hold(q)
		f.opened = q
	}
	b := bridge.New(q, nil)
	set, err := b.Settings()
	warn = err
	if err := b.Start(set.StartOnLaunch || f.modes.StartQueue()); err != nil {
		warn = err
	}
	return shown{back: b, local: b}, warn, nil
}

// show makes the window over s, in reuse when it is not nil, and starts
// it. It runs on the UI goroutine once the app runs.
func (f *front) show(s shown, reuse fyne.Window) *ui.Window {
	w := newUIWindow(f.app, s.back, f.modes, reuse)
	w.Win.SetTitle(s.title())
	if f.keep != nil {
		link := ""
		if s.remote != nil {
			link = s.remote.Endpoint()
		}
		f.keep.setShown(link)
		w.Connections = f.keep
		w.ShowConnections()
	}
	w.SetupTray()
	w.Start()
	if s.remote != nil && f.keep != nil && f.keep.secretLost(s.remote.Endpoint()) {
		link := s.remote.Endpoint()
		w.AskConnectionSecret(link, func(secret string) {
			if err := f.keep.keepSecret(link, secret); err != nil {
				w.SayConnection(err.Error())
				return
			}
			f.switchAgain(link)
		})
	}
	return w
}

// run shows the downloads at link ("" this computer's), falling back to
// this computer's when link cannot be driven, until the window closes.
func (f *front) run(ctx context.Context, link string, sources []string) int {
	s, warn, err := f.open(link)
	if err != nil && link != "" && f.keep != nil && f.keep.queue() != nil {
		fmt.Fprintf(f.stderr, "braid: %v The window opens on this computer's downloads.\n", err)
		s, warn, err = f.open("")
	}
	if err != nil {
		fmt.Fprintf(f.stderr, "braid: %v\n", err)
		return 1
	}
	if warn != nil {
		fmt.Fprintf(f.stderr, "braid: %v\n", warn)
	}
	if f.keep != nil {
		f.keep.switchTo = f.switchTo
	}
	f.app = newApp()
	f.w, f.cur = f.show(s, nil), s
	if f.keep != nil && f.keep.queue() != nil {
		for _, n := range f.keep.queue().Notices() {
			fmt.Fprintln(f.stderr, "braid:", n)
		}
	}
	// One after the other, in the order given, as a hand-over's.
	f.w.OpenSources(sources)

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var served chan struct{}
	if f.inst != nil {
		served = make(chan struct{})
		go func() {
			defer close(served)
			_ = f.inst.Serve(ctx, func(h platform.Handoff) (platform.Answer, error) { return f.handoff(ctx, h) })
		}()
	}
	modesEnded := runModes(ctx, f.w, f.modes, f.stderr)
	f.app.Run()
	// Shut down from the outside in: no more handoffs, then the window's
	// goroutines, then the runner (the job in hand goes back to queued).
	cancel()
	if f.inst != nil {
		<-served
		_ = f.inst.Close()
	}
	code := modesEnded()
	f.mu.Lock()
	w, cur := f.w, f.cur
	f.mu.Unlock()
	w.Stop()
	if err := cur.close(); err != nil {
		fmt.Fprintf(f.stderr, "braid: %v\n", err)
	}
	f.closing.Wait()
	if f.opened != nil {
		_ = f.opened.Close()
	}
	return code
}

// handoff takes what a second start or the browsers' native host hands
// over: sources open in the window; a browser's link goes to the
// downloads the window shows (a daemon's, with addUri); a wake-up runs
// this computer's queue when it is shown, and otherwise leaves the job
// waiting in it.
func (f *front) handoff(ctx context.Context, h platform.Handoff) (platform.Answer, error) {
	f.mu.Lock()
	w, cur := f.w, f.cur
	f.mu.Unlock()
	switch {
	case h.Add != nil:
		if cur.local != nil {
			return cur.local.TakeLink(ctx, *h.Add)
		}
		if l := h.Add; l.State != "" && f.keep != nil && !sameFolder(l.State, f.keep.dir) {
			return platform.Answer{}, fmt.Errorf("%w: it shows the downloads of %s", platform.ErrElsewhere, cur.remote.Endpoint())
		}
		return cur.remote.TakeLink(ctx, *h.Add)
	case h.Wake:
		if cur.local != nil {
			cur.local.Wake()
		}
		return platform.Answer{}, nil
	}
	w.OpenSources(absSources(h.Args, h.Dir))
	fyne.Do(w.ShowWindow)
	return platform.Answer{}, nil
}

// sameFolder: a and b name one folder.
func sameFolder(a, b string) bool {
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	fa, errA := os.Stat(a)
	fb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(fa, fb)
}

// switchTo shows the downloads at link ("" this computer's) in the
// window in place of the ones it shows: the new backend is made off the
// UI goroutine, then a new ui.Window takes the same fyne.Window over (its
// place and size kept), and the one before is stopped and its backend let
// go of (this computer's downloads pause, kept in its queue). It runs on
// the UI goroutine.
func (f *front) switchTo(link string) {
	f.mu.Lock()
	if f.switching || (link == "" && f.cur.local != nil) || (f.cur.remote != nil && link == f.cur.remote.Endpoint()) {
		f.mu.Unlock()
		return
	}
	f.mu.Unlock()
	f.switchAgain(link)
}

// switchAgain is switchTo, also to the downloads shown (a daemon
// connected to again with the secret just given).
func (f *front) switchAgain(link string) {
	f.mu.Lock()
	if f.switching {
		f.mu.Unlock()
		return
	}
	f.switching = true
	old, was := f.w, f.cur
	f.mu.Unlock()
	go func() {
		// This computer's runner, let go of by an earlier switch, has
		// stopped before another runs its queue.
		f.closing.Wait()
		s, warn, err := f.open(link)
		fyne.Do(func() {
			f.mu.Lock()
			f.switching = false
			f.mu.Unlock()
			if err != nil {
				old.SayConnection(err.Error())
				return
			}
			w := f.show(s, old.Win)
			f.mu.Lock()
			f.w, f.cur = w, s
			f.mu.Unlock()
			if fm, ok := f.modes.(interface{ Follow(*ui.Window) }); ok {
				fm.Follow(w)
			}
			if warn != nil {
				w.SayConnection(warn.Error())
			} else if note := f.keep.takeNote(); note != "" {
				w.SayConnection(note)
			}
			f.closing.Add(1)
			go func() {
				defer f.closing.Done()
				old.Stop()
				if err := was.close(); err != nil {
					fmt.Fprintf(f.stderr, "braid: %v\n", err)
				}
			}()
		})
	}()
}
