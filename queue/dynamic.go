package queue

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"braid/engine"
	"braid/engine/resolve"
)

// RefreshAfter is how long a dynamic job (its document says its origin
// may hold a newer one) goes without asking that origin: a job that
// resumes later than this fetches its document again first.
var RefreshAfter = time.Hour

// maxRefreshRuns bounds how often one run of a job starts over after a
// refresh found new mirrors or a new version, so an origin that changes on
// every fetch cannot keep a job going round.
const maxRefreshRuns = 3

type refreshRunsKey struct{}

// refreshStale fetches a dynamic job's document again when it was last
// fetched (or added) more than RefreshAfter ago. An origin that cannot be
// reached is no reason not to run the job with the mirrors it has.
func (r *Runner) refreshStale(ctx context.Context, j *Job) error {
	if j.Doc == nil || !j.Doc.Dynamic || j.Doc.Origin == "" {
		return nil
	}
	if due, err := r.Queue.RefreshDue(j.ID); err != nil || !due {
		return err
	}
	_, err := r.refresh(ctx, j, "")
	return err
}

// RefreshDue reports whether job id's document was last fetched from its
// origin (or, never, the job added) more than RefreshAfter ago: whether a
// dynamic job that resumes now should ask its origin first.
func (q *Queue) RefreshDue(id int64) (bool, error) {
	var added, refreshed int64
	if err := q.db.QueryRow(`SELECT added_at, refreshed_at FROM jobs WHERE id = ?`, id).Scan(&added, &refreshed); err != nil {
		return false, q.wrap(fmt.Sprintf("job %d: when was it refreshed", id), err)
	}
	return time.Since(time.UnixMilli(max(added, refreshed))) >= RefreshAfter, nil
}

// MarkRefreshed records that job id's document was fetched from its
// origin just now.
func (q *Queue) MarkRefreshed(id int64) error {
	return q.exec(fmt.Sprintf("job %d: record its refresh", id),
		`UPDATE jobs SET refreshed_at = ? WHERE id = ?`, time.Now().UnixMilli(), id)
}

// refreshOnNoMirrors fetches a dynamic job's document again when file f
// ran out of mirrors (err: every mirror dropped, or none left that could
// send a good copy of a piece), and reports whether the job should run again
// (with the context to run it with): the origin listed mirrors f did not
// have, or a new version.
func (r *Runner) refreshOnNoMirrors(ctx context.Context, j *Job, f File, err error) (context.Context, bool) {
	runs, _ := ctx.Value(refreshRunsKey{}).(int)
	out := errors.Is(err, engine.ErrNoMirrors) || errors.Is(err, engine.ErrBadPiece)
	if !out || j.Doc == nil || !j.Doc.Dynamic || runs >= maxRefreshRuns {
		return ctx, false
	}
	changed, rerr := r.refresh(ctx, j, f.Name)
	if rerr != nil || !changed {
		return ctx, false
	}
	return context.WithValue(ctx, refreshRunsKey{}, runs+1), true
}

// refresh fetches job j's document from its origin and applies it to the
// selected files not verified yet (only the file named only, when not
// ""): new mirrors are added, keeping the pieces verified so far; a file
// whose bytes changed is a new version, started afresh, and the job's
// Notice says so. It reports whether anything changed, and reloads j.
// Failing to reach the origin is not an error (the job goes on with what
// it has); failing to store what was found is.
func (r *Runner) refresh(ctx context.Context, j *Job, only string) (bool, error) {
	q := r.Queue
	fresh, err := resolve.Refetch(ctx, j.Doc, resolve.Options{})
	if err != nil {
		return false, nil
	}
	if err := q.MarkRefreshed(j.ID); err != nil {
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
			if err := q.newVersion(*j, f, up); err != nil {
				return changed, err
			}
			changed = true
		case len(up.Added) > 0:
			if err := q.putFile(j.ID, up.File, false); err != nil {
				return changed, err
			}
			changed = true
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

// newVersion replaces file f of job j by the publisher's new version: its
// pieces are forgotten, the old version's .part is removed, and the job's
// Notice says what happened.
func (q *Queue) newVersion(j Job, f File, up *resolve.Update) error {
	if err := q.putFile(j.ID, up.File, true); err != nil {
		return err
	}
	if up.File.Name != f.Name {
		if err := q.exec(fmt.Sprintf("job %d: deselect %s", j.ID, f.Name),
			`UPDATE files SET selected = 0 WHERE job = ? AND name = ?`, j.ID, f.Name); err != nil {
			return err
		}
	}
	if root, err := os.OpenRoot(j.Dest); err == nil {
		// What the .part holds is of the old version.
		_ = root.Remove(filepath.FromSlash(f.Name) + ".part")
		root.Close()
	}
	what := fmt.Sprintf("the publisher has a new version of %s", f.Name)
	if up.File.Name != f.Name {
		what += " (now " + up.File.Name + ")"
	}
	if up.File.Version != "" {
		what += ", version " + up.File.Version
	}
	return q.SetNotice(j.ID, what+"; started it afresh")
}

// SetNotice records something the user should hear about job id (a new
// version found at its origin), shown by `braid queue list` and the window
// until the next notice.
func (q *Queue) SetNotice(id int64, notice string) error {
	return q.exec(fmt.Sprintf("job %d: record a notice", id), `UPDATE jobs SET notice = ? WHERE id = ?`, notice, id)
}

// Notice returns what SetNotice recorded for job id, "" when nothing.
func (q *Queue) Notice(id int64) (string, error) {
	var n string
	if err := q.db.QueryRow(`SELECT notice FROM jobs WHERE id = ?`, id).Scan(&n); err != nil {
		return "", q.wrap(fmt.Sprintf("job %d: read its notice", id), err)
	}
	return n, nil
}
