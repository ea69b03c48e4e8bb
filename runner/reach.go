package runner

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"braid/engine/metalink"
	"braid/queue"
)

// Add first, reach later: a plain link whose server could not be reached
// when it was added is a job at once, of one file named after the link
// (UnreachedDoc), so that `queue list` and the window show it from the
// start. Its run first reads the link again, waiting for the network as a
// download does, and then downloads the file the server names.

// Back-off of a run while its link cannot be read for reasons time cures,
// as the engine's mirrors back off: doubling from ResolveFirstWait up to
// ResolveMaxWait, with jitter. Tests shorten them.
var (
	ResolveFirstWait = time.Second
	ResolveMaxWait   = time.Minute
)

// unreached reports whether job j is still the placeholder of a link not
// read yet: its one file is the link's UnreachedFile, with nothing of it
// kept.
func unreached(j queue.Job) bool {
	if j.Doc == nil || len(j.Doc.Files) != 1 || j.Member != nil {
		return false
	}
	want, ok := UnreachedFile(j.Source)
	if !ok {
		return false
	}
	got := j.Doc.Files[0]
	if got.Name != want.Name || got.Size >= 0 || len(got.Hashes) > 0 || len(got.URLs) != 1 || got.URLs[0].URL != want.URLs[0].URL {
		return false
	}
	_, _, kept, _ := j.Progress()
	return kept == 0
}

// reach reads the link of placeholder job j until its server answers,
// within RetryFor, keeping the next try with the job and telling the
// Observer; a link that fails for good (a 404, refused credentials) ends
// the run with its error. The job then holds the file the server names,
// with what the server said of it, in place of the placeholder.
func (r *Runner) reach(ctx context.Context, j *queue.Job) error {
	q := r.Queue
	ss, err := r.openNet(j.ID)
	if err != nil {
		return err // a login lost: paused with a sentence
	}
	ro := r.ReadOptions().Wearing(ss)
	start := time.Now()
	wait := ResolveFirstWait
	var doc *metalink.Document
	var origin queue.Origin
	for {
		doc, origin, err = ResolveSource(ctx, j.Source, ro)
		if err == nil {
			break
		}
		if !NetworkError(err) || ctx.Err() != nil {
			return err
		}
		if r.RetryFor > 0 {
			left := r.RetryFor - time.Since(start)
			if left <= 0 {
				return fmt.Errorf("%w (gave up after waiting %s for the network, --retry-for)", err, r.RetryFor)
			}
			wait = min(wait, left)
		}
		_ = q.SetWaiting(j.ID, time.Now().Add(wait), err.Error()) // for display only
		if r.Observer != nil {
			r.Observer.Note(Note{Kind: NoteWaiting, Source: j.Source, Err: err, Wait: wait})
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
		// Doubling with up to a quarter of jitter, so that many waiting
		// clients do not all come back in the same second.
		wait = min(2*wait, ResolveMaxWait)
		wait += time.Duration(rand.Int64N(int64(wait/4) + 1))
		wait = min(wait, ResolveMaxWait)
	}
	_ = q.SetWaiting(j.ID, time.Time{}, "")
	if origin.Referer == "" {
		origin.Referer = j.Origin.Referer
	}
	return r.takeFiles(j, doc.Files, origin)
}

// takeFiles gives job j the files its source turned out to hold, in place
// of the placeholder it had until then (queue.Drop), with origin, and
// reads j again: the row, queue list and the files recorded done then say
// what is fetched.
func (r *Runner) takeFiles(j *queue.Job, files []metalink.File, origin queue.Origin) error {
	if err := r.Queue.Reselect(j.ID, files, origin, queue.Drop); err != nil {
		return err
	}
	nj, err := r.Queue.Get(j.ID)
	if err != nil {
		return err
	}
	*j = nj
	return nil
}
