package main

import (
	"context"
	"errors"
	"fmt"

	"braid/engine"
	"braid/engine/metalink"
	"braid/engine/resolve"
)

// maxRefreshes bounds how often get asks a dynamic metalink's origin again
// for one file, so an origin that changes on every fetch cannot keep it
// going round.
const maxRefreshes = 3

// downloadDynamic is download for a file of doc that, when doc is dynamic
// (RFC 5854 <origin dynamic="true">), fetches doc again from its origin
// when the file runs out of mirrors, or before it resumes a download last
// refreshed long ago (queue.RefreshAfter), and goes on with the mirrors
// the origin lists now (the pieces verified so far are kept), or, when the
// origin describes other bytes, says that the publisher has a new version
// and downloads that from the start.
func (o *getOptions) downloadDynamic(ctx context.Context, st getState, src string, doc *metalink.Document, req *engine.Request) (*engine.Snapshot, error) {
	if !doc.Dynamic || doc.Origin == "" {
		return o.download(ctx, src, req)
	}
	if o.refreshDue(st, src, doc, req) {
		if _, err := o.refresh(ctx, st, src, doc, req); err != nil {
			return nil, err
		}
	}
	snap, err := o.download(ctx, src, req)
	for range maxRefreshes {
		if !errors.Is(err, engine.ErrNoMirrors) && !errors.Is(err, engine.ErrBadPiece) {
			return snap, err
		}
		changed, rerr := o.refresh(ctx, st, src, doc, req)
		if rerr != nil {
			return snap, rerr
		}
		if !changed {
			return snap, err
		}
		snap, err = o.download(ctx, src, req)
	}
	return snap, err
}

// refreshDue reports whether a dynamic document that did not come from its
// origin just now is stale for the job get is resuming.
func (o *getOptions) refreshDue(st getState, src string, doc *metalink.Document, req *engine.Request) bool {
	qs := queueStateOf(st)
	if qs == nil || req.Done == nil || src == doc.Origin {
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
func (o *getOptions) refresh(ctx context.Context, st getState, src string, doc *metalink.Document, req *engine.Request) (bool, error) {
	name := req.File.Name
	up, err := resolve.Refresh(ctx, doc, req.File, resolve.Options{HTTPClient: o.client.HTTP})
	qs := queueStateOf(st)
	if qs != nil && !errors.Is(err, resolve.ErrNotDynamic) {
		if id, ok := qs.jobOf(req); ok {
			_ = qs.open().MarkRefreshed(id) // at worst the origin is asked again next time
		}
	}
	if err != nil {
		o.note(name, fmt.Sprintf("asked the metalink's origin for news: %v", err))
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
		o.note(name, fmt.Sprintf("the metalink's origin lists %d more mirrors; going on with them", len(up.Added)))
	default:
		return false, nil
	}
	*doc = *up.Document
	req.File, req.Done, req.Journal = up.File, nil, nil
	if st != nil {
		if err := st.Prepare(ctx, src, req); err != nil {
			return false, fmt.Errorf("%s: state: %w", req.File.Name, err)
		}
	}
	if notice != "" {
		o.note(name, notice)
		if qs != nil {
			if id, ok := qs.jobOf(req); ok {
				_ = qs.open().SetNotice(id, name+": "+notice) // shown by queue list; the user was told here
			}
		}
	}
	return true, nil
}

// note tells the user something about a file that is not its result.
func (o *getOptions) note(name, msg string) {
	if o.json {
		writeJSON(o.stdout, struct {
			Type    string `json:"type"` // "notice"
			File    string `json:"file"`
			Message string `json:"message"`
		}{"notice", name, msg})
		return
	}
	fmt.Fprintf(o.stderr, "%s: %s\n", name, msg)
}
