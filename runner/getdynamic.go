package runner

import (
	"context"
	"fmt"

	"braid/engine"
	"braid/engine/metalink"
)

// A dynamic metalink (RFC 5854 <origin dynamic="true">) get downloads is
// fetched again from its origin when a file runs out of mirrors, or before
// it resumes a download last refreshed long ago (queue.RefreshAfter):
// through the runner's refresh of the file's job, as a queue run does.

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
	j, err := q.Get(id)
	return err == nil && j.RefreshDue()
}

// refresh asks doc's origin for news of req's file through the runner's
// refresh of its job (refreshFile), telling what it said, and when
// anything changed has made req the download of the file as the job now
// stands; it reports whether anything changed.
func (g *Get) refresh(ctx context.Context, src string, doc *metalink.Document, req *engine.Request) (bool, error) {
	q, id, ok := g.jobOf(req)()
	if !ok {
		return false, nil // a job that could not be recorded is told with its file
	}
	g.useQueue(q)
	j, err := q.Get(id)
	if err == nil {
		var changed bool
		changed, err = g.runner.newJobRun(j).refreshFile(ctx, &j, req, refreshing{doc: doc, hc: g.httpClient(),
			tell: func(file, _, msg string) {
				g.Observer.Note(Note{Kind: NoteNews, Source: src, File: file, Message: msg})
			}})
		if err == nil {
			return changed, nil
		}
	}
	return false, fmt.Errorf("%s: state: %w", req.File.Name, err)
}
