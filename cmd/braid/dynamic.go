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

// downloadDynamic is download for a file of doc: when doc is dynamic and
// the file runs out of mirrors, it fetches doc again from its origin and
// goes on with the mirrors it lists now (the pieces verified so far are
// kept), or, when the origin describes other bytes, says that the
// publisher has a new version and downloads that from the start.
func (o *getOptions) downloadDynamic(ctx context.Context, st getState, src string, doc *metalink.Document, req *engine.Request) error {
	err := o.download(ctx, src, req)
	for tries := 0; tries < maxRefreshes && doc.Dynamic && doc.Origin != ""; tries++ {
		if !errors.Is(err, engine.ErrNoMirrors) && !errors.Is(err, engine.ErrBadPiece) {
			return err
		}
		up, rerr := resolve.Refresh(ctx, doc, req.File, resolve.Options{HTTPClient: o.client.HTTP})
		if rerr != nil {
			o.note(req.File.Name, fmt.Sprintf("asked the metalink's origin for other mirrors: %v", rerr))
			return err
		}
		switch {
		case up.NewVersion:
			what := "the publisher has a new version"
			if up.File.Version != "" {
				what += " (" + up.File.Version + ")"
			}
			o.note(req.File.Name, what+"; downloading it from the start")
		case len(up.Added) > 0:
			o.note(req.File.Name, fmt.Sprintf("the metalink's origin lists %d more mirrors; going on with them", len(up.Added)))
		default:
			return err
		}
		*doc = *up.Document
		req.File, req.Done, req.Journal = up.File, nil, nil
		if st != nil {
			if perr := st.Prepare(ctx, src, req); perr != nil {
				return fmt.Errorf("%s: state: %w", req.File.Name, perr)
			}
		}
		err = o.download(ctx, src, req)
	}
	return err
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
