package runner

import (
	"context"
	"errors"
	"fmt"
	"time"

	"braid/engine/metalink"
	"braid/engine/torrent"
	"braid/queue"
)

// getTorrent gets a .torrent file or URL, or a magnet link, as a queue
// job like any other: added (or found, to resume), run by the runner
// through the process's one BitTorrent client, then seeded as the
// BitTorrent choices say.
func (g *Get) getTorrent(ctx context.Context, src string) bool {
	spec, err := torrent.Resolve(ctx, src, g.httpClient())
	if err != nil {
		g.fail(src, "", fmt.Errorf("%s: %w", src, err))
		return false
	}
	return g.runTorrent(ctx, src, src, spec)
}

// getMetalinkTorrent gets a metalink file through the torrent its metaurl
// names, with the file's HTTP mirrors as web seeds. Its job is the
// torrent's (the metaurl is its source), apart from the job of the
// metalink's other files.
func (g *Get) getMetalinkTorrent(ctx context.Context, src string, f metalink.File) bool {
	spec, err := torrent.FromMetalink(ctx, f, g.httpClient())
	if err != nil {
		g.fail(src, f.Name, err)
		return false
	}
	jobSource := src
	for _, mu := range f.MetaURLs {
		if mu.MediaType == "torrent" {
			jobSource = mu.URL
			break
		}
	}
	return g.runTorrent(ctx, src, jobSource, spec)
}

// runTorrent adds or finds the torrent's job, runs it and tells its
// progress, seeding included, and its end.
func (g *Get) runTorrent(ctx context.Context, src, jobSource string, spec *torrent.Spec) bool {
	run := &FileRun{Source: src, Name: spec.Name, Size: -1, Mirrors: len(spec.WebSeeds), Torrent: true}
	id, err := g.torrentJob(jobSource, spec)
	if err != nil {
		if !stateFailed(ctx) {
			g.fail(src, spec.Name, fmt.Errorf("state: %w", err))
		}
		return false
	}
	g.Observer.Start(run)
	res := make(chan error, 1)
	go func() { res <- g.runner.RunJob(ctx, id) }()
	t := time.NewTicker(g.Observer.Interval())
	defer t.Stop()
	var last torrent.Snapshot
	read := func() bool {
		tj, ok := g.runner.LiveTorrent(id)
		if ok {
			last = tj.Snapshot()
			run.Name, run.Size = last.Name, last.Size
		}
		return ok
	}
	var err2 error
wait:
	for {
		select {
		case err2 = <-res:
			break wait
		case <-t.C:
			if read() {
				g.Observer.Progress(run, Progress{Snapshot: &last.Snapshot, Torrent: &last})
			}
		}
	}
	read()
	if err2 == nil {
		// Done: it seeds on, by the seed ratio and time, until Ctrl-C.
		if tj, ok := g.runner.LiveTorrent(id); ok {
		seed:
			for {
				select {
				case <-tj.Done():
					break seed
				case <-ctx.Done():
					g.runner.StopSeeding(id)
					break seed
				case <-t.C:
					last = tj.Snapshot()
					g.Observer.Progress(run, Progress{Snapshot: &last.Snapshot, Torrent: &last})
				}
			}
			last = tj.Snapshot()
		}
	}
	if errors.Is(err2, queue.ErrPaused) && ctx.Err() != nil {
		err2 = ctx.Err()
	}
	snap := last.Snapshot
	if snap.Name == "" {
		snap.Name = run.Name
	}
	g.Observer.Result(Result{Run: run, Source: src, File: run.Name, Snapshot: &snap, Torrent: &last, Err: err2})
	return err2 == nil
}

// torrentJob is the queue job of a torrent for get: the one an earlier
// get or the window left (made runnable again), or a new one; in order
// (queue.InOrder) under InOrder, which the runner passes on.
func (g *Get) torrentJob(source string, spec *torrent.Spec) (int64, error) {
	id, err := g.findTorrentJob(source, spec)
	if err != nil || !g.InOrder {
		return id, err
	}
	return id, g.st.open().SetJob(id, queue.InOrder(true))
}

func (g *Get) findTorrentJob(source string, spec *torrent.Spec) (int64, error) {
	q, err := g.st.queue()
	if err != nil {
		return 0, err
	}
	g.useQueue(q)
	id, found, err := q.JobFor(source, g.Dir)
	if err != nil {
		return 0, err
	}
	if found {
		j, err := q.Get(id)
		if err != nil {
			return 0, err
		}
		switch j.State {
		case queue.Paused, queue.Failed:
			return id, q.Resume(id)
		case queue.Done:
			// Run again: the pieces on disk are checked against the
			// queue's completion, and it seeds as the flags say.
			return id, q.SetState(id, queue.Queued)
		}
		return id, nil
	}
	doc, err := torrent.Document(spec, source)
	if err != nil {
		return 0, err
	}
	if id, err = q.Add(queue.NewJob{Source: source, Dest: g.Dir, Doc: doc, Selected: spec.Only}); err != nil {
		return 0, err
	}
	return id, q.SetTorrentSpec(id, spec)
}

// useQueue gives the runner the queue once it is open, before any of
// get's torrents runs a job.
func (g *Get) useQueue(q *queue.Queue) {
	g.queueOnce.Do(func() { g.runner.Queue = q })
}
