package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"sync/atomic"

	"braid/engine"
	"braid/engine/metalink"
	"braid/queue"
)

// defaultJobs is how many sources `braid get` downloads at once, as the
// queue's "downloads at once" setting defaults to.
const defaultJobs = 3

// getAll downloads every source, up to o.jobs at once in the order given,
// and reports whether every file of every source verified. The files of a
// source download side by side too; the Client's connection budget (a
// total and a per-host cap) holds across all of them.
func (o *getOptions) getAll(ctx context.Context, st getState) bool {
	o.lockOutput()
	if st != nil {
		st = &lockedState{st: st}
	}
	var failed atomic.Bool
	runEach(ctx, len(o.sources), o.jobs, func(i int) {
		if !o.getSource(ctx, st, o.sources[i]) {
			failed.Store(true)
		}
	})
	return !failed.Load() && ctx.Err() == nil
}

// getFiles downloads a source's selected files side by side, keeping the
// Client's connections busy (Client.FilesAtOnce), and reports whether all
// verified. The state prepares them all at once.
func (o *getOptions) getFiles(ctx context.Context, st getState, src string, doc *metalink.Document, origin queue.Origin, files []metalink.File) bool {
	reqs := make([]*engine.Request, len(files))
	for i, f := range files {
		reqs[i] = &engine.Request{
			Dir:        o.dir,
			File:       f,
			OriginETag: origin.ETag,
			Referer:    origin.Referer,
			Locations:  o.prefs.Locations,
			Batch:      len(files) > 1,
			RetryFor:   o.retryFor,
		}
	}
	var job *pendingJob // the job PrepareAll put the files in; nil when none did
	if bp, ok := st.(batchPreparer); ok {
		if err := bp.PrepareAll(ctx, src, reqs); err != nil {
			if errors.Is(context.Cause(ctx), errNoState) {
				return false // get said so
			}
			for _, f := range files {
				o.fail(src, f.Name, fmt.Errorf("%s: state: %w", f.Name, err))
			}
			return false
		}
		if qs := queueStateOf(st); qs != nil && len(reqs) > 0 {
			job = qs.pendingOf(reqs[0])
		}
	} else if st != nil {
		for i, r := range reqs {
			if err := st.Prepare(ctx, src, r); err != nil {
				o.fail(src, files[i].Name, fmt.Errorf("%s: state: %w", files[i].Name, err))
				return false
			}
		}
	}
	var failed atomic.Bool
	runEach(ctx, len(reqs), o.client.FilesAtOnce(), func(i int) {
		sig := o.checkSignature(st, reqs[i])
		snap, err := o.downloadDynamic(ctx, st, src, doc, reqs[i])
		o.reportSignature(reqs[i].File.Name, sig)
		if st != nil {
			if serr := st.Finish(src, reqs[i], snap, err); serr != nil && !o.json && !errors.Is(context.Cause(ctx), errNoState) {
				fmt.Fprintf(o.stderr, "%s: state: %v\n", reqs[i].File.Name, serr)
			}
		}
		if err != nil {
			failed.Store(true)
		}
	})
	if qs := queueStateOf(st); qs != nil && job != nil {
		// A job that could not be recorded was told with each file.
		if id, err := job.wait(); err == nil {
			if err := qs.open().FinishIfComplete(id); err != nil && !o.json {
				fmt.Fprintf(o.stderr, "%s: state: %v\n", src, err)
			}
		}
	}
	return !failed.Load()
}

// runEach calls do(i) for i in [0, n), in order, at most k at once, and
// returns when every call has returned. Once ctx ends no new call starts.
func runEach(ctx context.Context, n, k int, do func(i int)) {
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		next int
	)
	for range min(n, max(k, 1)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				i := next
				if i == n || ctx.Err() != nil {
					mu.Unlock()
					return
				}
				next++
				mu.Unlock()
				do(i)
			}
		}()
	}
	wg.Wait()
}

// lockOutput makes o's writers safe for the downloads running side by
// side: each Write, and so each line get prints, goes out whole. stdout
// and stderr share one lock, as they often share one terminal.
func (o *getOptions) lockOutput() {
	if _, ok := o.stdout.(*lockedWriter); ok {
		return // locked already
	}
	mu := &sync.Mutex{}
	o.stdout = &lockedWriter{mu: mu, w: o.stdout}
	o.stderr = &lockedWriter{mu: mu, w: o.stderr}
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// lockedState makes a getState safe for files preparing and finishing side
// by side.
type lockedState struct {
	mu sync.Mutex
	st getState
}

func (l *lockedState) Prepare(ctx context.Context, source string, req *engine.Request) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.st.Prepare(ctx, source, req)
}

func (l *lockedState) Finish(source string, req *engine.Request, snap *engine.Snapshot, err error) error {
	if qs, ok := l.st.(*queueState); ok {
		// Outside the lock, so that files ending together share a
		// transaction.
		if done, ferr := qs.finish(&l.mu, req, snap, err); done {
			return ferr
		}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.st.Finish(source, req, snap, err)
}

func (l *lockedState) Close() error { return l.st.Close() }

// queueStateOf is the queue behind st, seen through the lock that get's
// side-by-side downloads put around it; nil when get keeps no state.
func queueStateOf(st getState) *queueState {
	if l, ok := st.(*lockedState); ok {
		st = l.st
	}
	qs, _ := st.(*queueState)
	return qs
}

// display picks the one download a terminal's progress line shows while
// several run: the oldest, until it ends. A nil display shows every one.
type display struct {
	mu  sync.Mutex
	dls []*engine.Download
}

func (d *display) add(dl *engine.Download) {
	if d == nil {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.dls = append(d.dls, dl)
}

func (d *display) remove(dl *engine.Download) {
	if d == nil {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.dls = slices.DeleteFunc(d.dls, func(x *engine.Download) bool { return x == dl })
}

// shows reports whether dl is the download the progress line shows.
func (d *display) shows(dl *engine.Download) bool {
	if d == nil {
		return true
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.dls) > 0 && d.dls[0] == dl
}
