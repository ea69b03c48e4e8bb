package runner

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"braid/engine"
	"braid/engine/resolve"
	"braid/engine/rootfile"
	"braid/queue"
)

// maxRefreshRuns bounds how often one run of a job starts over after a
// refresh found new mirrors or a new version, so an origin that changes on
// every fetch cannot keep a job going round.
const maxRefreshRuns = 3

// refreshStale fetches a dynamic job's document again when it was last
// fetched (or added) more than queue.RefreshAfter ago. An origin that cannot be
// reached is no reason not to run the job with the mirrors it has.
func (r *Runner) refreshStale(ctx context.Context, j *queue.Job) error {
	if j.Doc == nil || !j.Doc.Dynamic || j.Doc.Origin == "" {
		return nil
	}
	if !j.RefreshDue() {
		return nil
	}
	_, err := r.refresh(ctx, j, "", nil)
	return err
}

// fetchRefreshing is fetch for a file of a dynamic document: when the
// file runs out of mirrors (every mirror dropped, or none left that could
// send a good copy of a piece), refresh (nil: none) asks the origin for
// news and, when there is (mirrors the file did not have, or a new
// version), has made req the file as it now stands, and it is fetched
// again. For a queue run's files and get's alike.
func (r *Runner) fetchRefreshing(ctx context.Context, c *engine.Client, req *engine.Request, w watching, refresh func() (bool, error)) (engine.Snapshot, error) {
	snap, err := r.fetch(ctx, c, req, w)
	for range maxRefreshRuns {
		if refresh == nil || (!errors.Is(err, engine.ErrNoMirrors) && !errors.Is(err, engine.ErrBadPiece)) {
			return snap, err
		}
		changed, rerr := refresh()
		if rerr != nil {
			return snap, rerr
		}
		if !changed {
			return snap, err
		}
		snap, err = r.fetch(ctx, c, req, w)
	}
	return snap, err
}

// refreshFile asks the origin of job j's dynamic document for news of
// req's file (refresh) and, when anything changed, makes req the download
// of the file as j now stands: its mirrors, the pieces it keeps, and for
// a new version its name. It reports whether anything changed.
func (jr *jobRun) refreshFile(ctx context.Context, j *queue.Job, req *engine.Request) (bool, error) {
	now := req.File.Name
	changed, err := jr.r.refresh(ctx, j, now, func(name string) { now = name })
	if err != nil || !changed {
		return false, err
	}
	i := slices.IndexFunc(j.Files, func(f queue.File) bool { return f.Name == now })
	if i < 0 {
		return false, fmt.Errorf("job %d: file %s is not in the refreshed document", j.ID, now)
	}
	f := j.Files[i]
	mf, err := jr.fileOf(*j, f)
	if err != nil {
		return false, err
	}
	done, err := trustedPieces(ctx, jr.r.Queue, j.ID, j.Dest, mf)
	if err != nil {
		return false, err
	}
	req.File, req.Done, req.SaveAs = mf, done, f.SavedAs
	return true, nil
}

// refresh fetches job j's document from its origin and applies it to the
// selected files not verified yet (only the file named only, when not
// ""): new mirrors are added, keeping the pieces verified so far; a file
// whose bytes changed is a new version, started afresh, and the job's
// Notice says so. It reports whether anything changed, and reloads j.
// Failing to reach the origin is not an error (the job goes on with what
// it has); failing to store what was found is. The Observer is told in
// words what the origin said of a file (that it could not be read, more
// mirrors, a new version), and renamed, when not nil, the file's name now
// (a new version may have another).
func (r *Runner) refresh(ctx context.Context, j *queue.Job, only string, renamed func(now string)) (bool, error) {
	q := r.Queue
	tell := func(file, now, msg string) {
		if renamed != nil {
			renamed(now)
		}
		if r.Observer != nil {
			r.Observer.Note(Note{Kind: NoteNews, Source: j.Source, File: file, Message: msg})
		}
	}
	fresh, err := resolve.Refetch(ctx, j.Doc, resolve.Options{HTTPClient: r.httpClientOf(j.ID)})
	if err != nil {
		tell(only, only, fmt.Sprintf("asked the metalink's origin for news: %v", err))
		return false, nil
	}
	if err := q.SetJob(j.ID, queue.Refreshed()); err != nil {
		return false, err
	}
	changed := false
	for _, f := range j.Files {
		if !f.Selected || f.Verified || (only != "" && f.Name != only) {
			continue
		}
		// The stored file with the mirrors the queue knows (fileOf), so
		// that an unchanged file is stored back unchanged, pieces kept.
		mf, err := r.newJobRun(*j).fileOf(*j, f)
		if err != nil {
			return changed, err
		}
		base := mf
		for _, df := range j.Doc.Files {
			if df.Name == f.Name {
				base = df
				base.URLs = mf.URLs
			}
		}
		up, err := resolve.Compare(j.Doc, base, fresh)
		if err != nil {
			continue // the file is gone from the origin: keep trying what it has
		}
		switch {
		case up.NewVersion:
			if err := newVersion(q, *j, f, up); err != nil {
				return changed, err
			}
			changed = true
			news := "the publisher has a new version"
			if up.File.Version != "" {
				news += " (" + up.File.Version + ")"
			}
			tell(f.Name, up.File.Name, news+"; downloading it from the start")
		case len(up.Added) > 0:
			if err := q.PutFile(j.ID, up.File, false); err != nil {
				return changed, err
			}
			changed = true
			tell(f.Name, f.Name, fmt.Sprintf("the metalink's origin lists %d more mirrors; going on with them", len(up.Added)))
		}
	}
	if changed {
		nj, err := q.Get(j.ID)
		if err != nil {
			return changed, err
		}
		*j = nj
	}
	return changed, nil
}

// newVersion replaces file f of job j by the publisher's new version up
// found: its pieces are forgotten, the old version's .part is removed, and
// the job's Notice says what happened.
func newVersion(q *queue.Queue, j queue.Job, f queue.File, up *resolve.Update) error {
	if err := q.PutFile(j.ID, up.File, true); err != nil {
		return err
	}
	if up.File.Name != f.Name {
		if err := q.SetFileSelected(j.ID, f.Name, false); err != nil {
			return err
		}
	}
	if root, err := os.OpenRoot(j.Dest); err == nil {
		// What the .part holds is of the old version.
		_ = rootfile.Remove(root, filepath.FromSlash(f.Name)+".part")
		root.Close()
	}
	what := fmt.Sprintf("the publisher has a new version of %s", f.Name)
	if up.File.Name != f.Name {
		what += " (now " + up.File.Name + ")"
	}
	if up.File.Version != "" {
		what += ", version " + up.File.Version
	}
	return q.SetJob(j.ID, queue.Notice(what+"; started it afresh"))
}
