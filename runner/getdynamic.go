package runner

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"braid/engine"
	"braid/engine/metalink"
	"braid/queue"
)

// downloadDynamic is download for a file of doc that, when doc is dynamic
// (RFC 5854 <origin dynamic="true">), fetches doc again from its origin
// when the file runs out of mirrors, or before it resumes a download last
// refreshed long ago (queue.RefreshAfter), and goes on with the mirrors
// the origin lists now (the pieces verified so far are kept), or, when the
// origin describes other bytes, says that the publisher has a new version
// and downloads that from the start: the runner's refresh, as a queue run
// does it.
func (g *Get) downloadDynamic(ctx context.Context, run *FileRun, doc *metalink.Document, req *engine.Request, heard func(string, float64)) (*engine.Snapshot, error) {
	if !doc.Dynamic || doc.Origin == "" {
		return g.download(ctx, run, req, heard)
	}
	if g.refreshDue(run.Source, doc, req) {
		if _, err := g.refresh(ctx, run.Source, doc, req); err != nil {
			return nil, err
		}
	}
	snap, err := g.download(ctx, run, req, heard)
	for range maxRefreshRuns {
		if !errors.Is(err, engine.ErrNoMirrors) && !errors.Is(err, engine.ErrBadPiece) {
			return snap, err
		}
		changed, rerr := g.refresh(ctx, run.Source, doc, req)
		if rerr != nil {
			return snap, rerr
		}
		if !changed {
			return snap, err
		}
		snap, err = g.download(ctx, run, req, heard)
	}
	return snap, err
}

// refreshDue reports whether a dynamic document that did not come from its
// origin just now is stale for the job get is resuming.
func (g *Get) refreshDue(src string, doc *metalink.Document, req *engine.Request) bool {
	if req.Done == nil || src == doc.Origin {
		return false // a fresh start, or the document was just read from its origin
	}
	q, id, ok := g.jobOf(req)()
	if !ok {
		return false
	}
	due, err := q.RefreshDue(id)
	return err == nil && due
}

// refresh asks doc's origin for news of req's file through the runner's
// refresh of its job, telling what it said, and when anything changed
// makes req the download of the file as the job now stands (its mirrors,
// the pieces kept); it reports whether anything changed.
func (g *Get) refresh(ctx context.Context, src string, doc *metalink.Document, req *engine.Request) (bool, error) {
	q, id, ok := g.jobOf(req)()
	if !ok {
		return false, nil // a job that could not be recorded is told with its file
	}
	g.useQueue(q)
	j, err := q.Get(id)
	if err != nil {
		return false, fmt.Errorf("%s: state: %w", req.File.Name, err)
	}
	now := req.File.Name
	changed, err := g.runner.refresh(ctx, &j, now, refreshing{doc: doc, hc: g.httpClient(),
		tell: func(file, name, msg string) {
			now = name
			g.Observer.Note(Note{Kind: NoteNews, Source: src, File: file, Message: msg})
		}})
	if err != nil || !changed {
		if err != nil {
			err = fmt.Errorf("%s: state: %w", req.File.Name, err)
		}
		return false, err
	}
	i := slices.IndexFunc(j.Files, func(f queue.File) bool { return f.Name == now })
	if i < 0 {
		return false, fmt.Errorf("%s: state: the job has no such file after the refresh", now)
	}
	f := j.Files[i]
	mf, err := g.runner.newJobRun(j).fileOf(j, f)
	if err != nil {
		return false, fmt.Errorf("%s: state: %w", now, err)
	}
	done, err := trustedPieces(ctx, q, id, j.Dest, mf)
	if err != nil {
		return false, fmt.Errorf("%s: state: %w", now, err)
	}
	req.File, req.Done, req.SaveAs = mf, done, f.SavedAs
	return true, nil
}
