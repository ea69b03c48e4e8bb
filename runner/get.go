package runner

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"braid/engine"
	"braid/engine/metalink"
	"braid/engine/netconf"
	"braid/engine/signature"
	"braid/engine/source"
	"braid/engine/torrent"
	"braid/queue"
)

// ErrNotVerified is the error of a file that was downloaded but that no
// published hash could check, when Get.RequireHash asks for one.
var ErrNotVerified = errors.New("not verified: no hash is published for it (--require-hash)")

// errNoState ends a get whose state folder could not be opened.
var errNoState = errors.New("the state folder could not be opened")

// Get is `braid get`'s run of the queue: it adds each source as a job (or
// finds the job an earlier get left, to resume it), runs its files and
// tells an Observer what happens. Files of a source the queue has not seen
// start while its job is recorded, so a large batch does not wait for the
// database; their journal and ends wait for it. Ctrl-C (ctx's end) leaves
// the jobs paused with their progress, as in the window.
type Get struct {
	Dir   string // where the files go
	State string // the state folder; "" the default (queue.Dir)
	// Locations are the countries whose mirrors go first.
	Locations []string
	// Given are the --lang and --os the user gave (real filters), Defaults
	// the system's, which only narrow choices (see metalink.Select).
	Given, Defaults metalink.Prefs
	Client          *engine.Client
	// Net is the sources' logins, cookies and headers (nil: none but
	// .netrc's and what the links carry).
	Net *netconf.Session
	// RequireHash makes a file no published hash could check a failure;
	// RequireSignature one that no key of the keyring signed.
	RequireHash, RequireSignature bool
	// RetryFor bounds how long a source or file waits for the network
	// (0: for ever).
	RetryFor time.Duration
	// Jobs is how many sources download at once.
	Jobs int
	// InOrder fetches each file from its start (engine.Request.InOrder),
	// to use it while it arrives.
	InOrder bool
	// Par2 is --par2's parity set (ParityArg) for the file of a plain
	// URL; nil uses the parity a metalink lists beside each file.
	Par2 *Parity
	// Torrent is the BitTorrent choices (braid get's --seed-ratio, --bt-*).
	Torrent  TorrentOptions
	Observer Observer
	// OpenQueue opens the state folder's queue; nil is queue.Open. Tests
	// make it slow or fail.
	OpenQueue func(dir string) (*queue.Queue, error)

	st        *queueState
	stMu      sync.Mutex // one PrepareAll, or one finish's look-up, at a time
	runner    *Runner    // runs the torrents' jobs; its Queue is set once open
	queueOnce sync.Once
	dir       string // the state folder, resolved
}

// Run gets every source, up to Jobs at once in the order given, and
// reports whether every selected file of every source is done (verified,
// or not verified where nothing is published and RequireHash is off).
// When the state folder cannot be opened it says so through the Observer
// and returns false.
func (g *Get) Run(ctx context.Context, sources []string) bool {
	if err := os.MkdirAll(g.Dir, 0o755); err != nil {
		g.Observer.Note(Note{Kind: NoteState, Err: fmt.Errorf("-d: %w", err)})
		return false
	}
	ctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	open := g.OpenQueue
	if open == nil {
		open = queue.Open
	}
	// The sources are read while the state opens; a state that cannot be
	// opened stops the get, and what it fetched meanwhile stays in its
	// .part files.
	st, err := openQueueState(g.State, open, func(notices []string, err error) {
		for _, n := range notices {
			g.Observer.Note(Note{Kind: NoteState, Message: n})
		}
		if err != nil {
			g.Observer.Note(Note{Kind: NoteState, Err: err})
			stop(errNoState)
		}
	})
	if err != nil {
		g.Observer.Note(Note{Kind: NoteState, Err: err})
		return false
	}
	defer st.Close()
	g.st, g.dir = st, st.dir
	st.net = g.Net
	st.said = func(m string) { g.Observer.Note(Note{Kind: NoteState, Message: m}) }
	g.runner = &Runner{Client: g.Client, TorrentOptions: g.Torrent, RetryFor: g.RetryFor, RequireSignature: g.RequireSignature}
	defer g.runner.Close()
	var failed atomic.Bool
	runEach(ctx, len(sources), g.Jobs, func(i int) {
		if !g.getSource(ctx, sources[i]) {
			failed.Store(true)
		}
	})
	return !failed.Load() && ctx.Err() == nil
}

// httpClient is what reads sources, torrents and documents: the Client's
// proxy route with the sources' logins, cookies and headers.
func (g *Get) httpClient() *http.Client {
	if g.Net == nil {
		return g.Client.HTTPClient()
	}
	return g.Net.Client(g.Client.HTTPClient())
}

// fail reports a source or file that ended before its download started.
func (g *Get) fail(source, file string, err error) {
	g.Observer.Result(Result{Source: source, File: file, Err: err})
}

// stateFailed reports whether ctx ended because the state folder could
// not be opened (which was told once, with the reason).
func stateFailed(ctx context.Context) bool { return errors.Is(context.Cause(ctx), errNoState) }

// getSource downloads the selected files of one source, side by side, and
// reports whether all of them are done.
func (g *Get) getSource(ctx context.Context, src string) bool {
	if source.Of(src).IsTorrent() {
		return g.getTorrent(ctx, src)
	}
	doc, origin, err := g.resolveWaiting(ctx, src)
	if err != nil {
		if linkExpired(err, true) {
			// A job of this link with bytes kept: the link expired.
			if q, qerr := g.st.queue(); qerr == nil {
				if e := pauseExpired(q, src, g.Dir, err); e != nil {
					err = e
				}
			}
		}
		g.fail(src, "", err)
		return false
	}
	for _, w := range doc.Warnings {
		g.Observer.Note(Note{Kind: NoteWarning, Source: src, Message: w})
	}
	ok := true
	for _, r := range doc.Rejected {
		g.fail(src, r.Name, fmt.Errorf("%s: refused: %s", r.Name, r.Reason))
		ok = false
	}
	var selected []metalink.File
	torrents := 0 // files fetched through their torrent
	choices, notes := metalink.Select(doc.Files, g.Given, g.Defaults)
	for _, n := range notes {
		g.Observer.Note(Note{Kind: NoteSelection, Source: src, Message: n})
	}
	for i, f := range doc.Files {
		if !choices[i].Selected {
			g.Observer.Note(Note{Kind: NoteSkipped, Source: src, File: f.Name, Message: choices[i].Why})
			continue
		}
		if torrent.HasTorrent(f) {
			torrents++
			ok = g.getMetalinkTorrent(ctx, src, f) && ok
			continue
		}
		selected = append(selected, f)
	}
	if !g.getFiles(ctx, src, doc, origin, selected) {
		ok = false
	}
	if ctx.Err() != nil {
		return false
	}
	if len(selected) == 0 && torrents == 0 && len(doc.Files) > 0 {
		g.fail(src, "", fmt.Errorf("%s: no file matches the language and OS filters (see --lang, --os)", src))
		return false
	}
	if len(doc.Files) == 0 && len(doc.Rejected) == 0 {
		g.fail(src, "", fmt.Errorf("%s: the source lists no file", src))
		return false
	}
	return ok
}

// getFiles downloads a source's selected files side by side, keeping the
// Client's connections busy (Client.FilesAtOnce), and reports whether all
// are done. The queue prepares them all at once.
func (g *Get) getFiles(ctx context.Context, src string, doc *metalink.Document, origin queue.Origin, files []metalink.File) bool {
	reqs := make([]*engine.Request, len(files))
	var sets map[string]metalink.ParitySet
	if doc != nil {
		sets = metalink.ParitySets(doc.Files)
	}
	for i, f := range files {
		f = g.withParityHash(ctx, f)
		reqs[i] = &engine.Request{
			Dir:        g.Dir,
			File:       f,
			OriginETag: origin.ETag,
			Referer:    origin.Referer,
			Locations:  g.Locations,
			Batch:      len(files) > 1,
			RetryFor:   g.RetryFor,
			Net:        g.Net,
			InOrder:    g.InOrder,
		}
		reqs[i].Parity = g.parityFor(doc, sets, f)
	}
	g.stMu.Lock()
	err := g.st.PrepareAll(ctx, src, doc, reqs)
	g.stMu.Unlock()
	if err != nil {
		if stateFailed(ctx) {
			return false // said so
		}
		for _, f := range files {
			g.fail(src, f.Name, fmt.Errorf("%s: state: %w", f.Name, err))
		}
		return false
	}
	var job *pendingJob // the job PrepareAll put the files in
	if len(reqs) > 0 {
		job = g.st.pendingOf(reqs[0])
	}
	var failed atomic.Bool
	var heard hostSpeeds
	ctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	if job != nil {
		guarded := make(chan struct{})
		defer func() { stop(nil); <-guarded }()
		go func() {
			defer close(guarded)
			// As a queue run's guard: a pause or remove from elsewhere
			// stops the source's files.
			guard(ctx, g.st.open, job.known, stop, nil)
		}()
	}
	runEach(ctx, len(reqs), g.Client.FilesAtOnce(), func(i int) {
		run := &FileRun{Source: src, Name: reqs[i].File.Name, Size: reqs[i].File.Size, Mirrors: len(reqs[i].File.URLs)}
		var sig signature.Outcome
		reqs[i].Check = signatureCheck(signature.OpenKeyring(queue.KeysDir(g.dir)), &reqs[i].File, g.RequireSignature, g.jobOf(reqs[i]), &sig)
		snap, err := g.download(ctx, run, doc, reqs[i], heard.heard)
		err = hashRequired(snap, err, g.RequireHash)
		worked := (reqs[i].Done != nil && reqs[i].Done.Count() > 0) || (snap != nil && snap.Bytes > 0)
		if linkExpired(err, worked) {
			if id, ok := g.st.jobOf(reqs[i]); ok {
				// Paused in the queue as "link expired", with the next step.
				err = LinkExpired(id, err)
			}
		}
		tellEnd(g.Observer, Result{Run: run, Source: src, File: run.Name, Snapshot: snap, Err: err}, sig)
		if serr := g.finish(reqs[i], snap, err); serr != nil && !stateFailed(ctx) {
			g.Observer.Note(Note{Kind: NoteState, Source: src, File: run.Name, Err: serr})
		}
		if err != nil {
			failed.Store(true)
		}
	})
	if job != nil {
		// A job that could not be recorded was told with each file.
		if id, err := job.wait(); err == nil {
			heard.record(g.st.open())
			if err := g.st.open().FinishIfComplete(id); err != nil {
				g.Observer.Note(Note{Kind: NoteState, Source: src, Err: err})
			}
		}
	}
	return !failed.Load()
}

// finish records how a file's download ended in the queue: files of one
// source landing together share a transaction.
func (g *Get) finish(req *engine.Request, snap *engine.Snapshot, err error) error {
	return g.st.finish(&g.stMu, req, snap, err)
}

// jobOf is the job of a request get prepared, once it is recorded (which
// it waits for), with its queue.
func (g *Get) jobOf(req *engine.Request) func() (*queue.Queue, int64, bool) {
	return func() (*queue.Queue, int64, bool) {
		id, ok := g.st.jobOf(req)
		return g.st.open(), id, ok
	}
}

// download runs one file of doc to its end through the runner's fetch,
// telling its progress, and returns its last snapshot and its error. What
// it learnt of the mirrors (their speeds, their strikes) is kept with the
// job, as a queue run keeps it. A dynamic doc is refreshed as a queue
// run's (getdynamic.go).
func (g *Get) download(ctx context.Context, run *FileRun, doc *metalink.Document, req *engine.Request, heard func(host string, bps float64)) (*engine.Snapshot, error) {
	var refresh func() (bool, error)
	if doc.Dynamic && doc.Origin != "" {
		refresh = func() (bool, error) { return g.refresh(ctx, run.Source, doc, req) }
		if g.refreshDue(run.Source, doc, req) {
			if _, err := refresh(); err != nil {
				return nil, err
			}
		}
	}
	snap, err := g.runner.fetchRefreshing(ctx, g.Client, req, watching{
		every: g.Observer.Interval(),
		job:   g.jobOf(req),
		begin: func(*engine.Snapshot) { g.Observer.Start(run) },
		tick:  func(s *engine.Snapshot) { g.Observer.Progress(run, Progress{Snapshot: s}) },
		heard: heard,
	}, refresh)
	return &snap, err
}
