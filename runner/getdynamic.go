package runner

import (
	"context"
	"errors"
	"fmt"

	"braid/engine"
	"braid/engine/metalink"
	"braid/engine/resolve"
)

// downloadDynamic is download for a file of doc that, when doc is dynamic
// (RFC 5854 <origin dynamic="true">), fetches doc again from its origin
// when the file runs out of mirrors, or before it resumes a download last
// refreshed long ago (queue.RefreshAfter), and goes on with the mirrors
// the origin lists now (the pieces verified so far are kept), or, when the
// origin describes other bytes, says that the publisher has a new version
// and downloads that from the start.
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
	qs := g.st
	if req.Done == nil || src == doc.Origin {
		return false // a fresh start, or the document was just read from its origin
	}
	id, ok := qs.jobOf(req)
	if !ok {
		return false
	}
	due, err := qs.open().RefreshDue(id)
	return err == nil && due
}

// refresh fetches doc from its origin and makes req the download of what
// it now says about req's file; it reports whether anything changed. An
// origin that cannot be read is told, not an error: the download goes on
// with what it has.
func (g *Get) refresh(ctx context.Context, src string, doc *metalink.Document, req *engine.Request) (bool, error) {
	name := req.File.Name
	up, err := resolve.Refresh(ctx, doc, req.File, resolve.Options{HTTPClient: g.httpClient()})
	qs := g.st
	if !errors.Is(err, resolve.ErrNotDynamic) {
		if id, ok := qs.jobOf(req); ok {
			_ = qs.open().MarkRefreshed(id) // at worst the origin is asked again next time
		}
	}
	if err != nil {
		g.news(src, name, fmt.Sprintf("asked the metalink's origin for news: %v", err))
		return false, nil
	}
	notice := ""
	switch {
	case up.NewVersion:
		notice = "the publisher has a new version"
		if up.File.Version != "" {
			notice += " (" + up.File.Version + ")"
		}
		notice += "; downloading it from the start"
	case len(up.Added) > 0:
		g.news(src, name, fmt.Sprintf("the metalink's origin lists %d more mirrors; going on with them", len(up.Added)))
	default:
		return false, nil
	}
	*doc = *up.Document
	req.File, req.Done, req.Journal = up.File, nil, nil
	g.stMu.Lock()
	err = qs.Prepare(ctx, src, req)
	g.stMu.Unlock()
	if err != nil {
		return false, fmt.Errorf("%s: state: %w", req.File.Name, err)
	}
	if notice != "" {
		g.news(src, name, notice)
		if id, ok := qs.jobOf(req); ok {
			_ = qs.open().SetNotice(id, name+": "+notice) // shown by queue list; the user was told here
		}
	}
	return true, nil
}

// news tells what a dynamic metalink's origin said of a file.
func (g *Get) news(src, name, msg string) {
	g.Observer.Note(Note{Kind: NoteNews, Source: src, File: name, Message: msg})
}
