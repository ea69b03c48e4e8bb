package main

import (
	"context"
	"sync"

	"braid/engine"
	"braid/engine/metalink"
	"braid/queue"
)

// batchPreparer is a getState that prepares all the files of a source at
// once, which for thousands of files is much faster than one by one.
type batchPreparer interface {
	PrepareAll(ctx context.Context, source string, reqs []*engine.Request) error
}

// PrepareAll is Prepare for every request of one source, in one pass over
// the queue (queue.PrepareFiles); the files record their pieces through
// one journal batch.
func (s *queueState) PrepareAll(ctx context.Context, source string, reqs []*engine.Request) error {
	if len(reqs) == 0 {
		return nil
	}
	r0 := reqs[0]
	origin := queue.Origin{ETag: r0.OriginETag, Referer: r0.Referer}
	files := make([]metalink.File, len(reqs))
	for i, r := range reqs {
		files[i] = r.File
	}
	id, done, err := s.q.PrepareFiles(ctx, source, r0.Dir, files, origin)
	if err != nil {
		return err
	}
	if s.batch == nil {
		s.batch = s.q.NewJournalBatch()
	}
	// The round that lands the job's last file marks it done as well;
	// getFiles' FinishIfComplete then finds nothing to write.
	s.batch.FinishWhenLanded(id)
	stored, err := s.q.Saved(id)
	if err != nil {
		return err
	}
	for i, r := range reqs {
		s.setJob(r, id)
		r.Done = done[i]
		r.Journal = s.batch.Journal(id)
		f := stored[r.File.Name]
		r.SaveAs, r.Landed = f.SavedAs, f.Verified && f.Created
	}
	return nil
}

func (l *lockedState) PrepareAll(ctx context.Context, source string, reqs []*engine.Request) error {
	bp, ok := l.st.(batchPreparer)
	if !ok {
		for _, r := range reqs {
			if err := l.Prepare(ctx, source, r); err != nil {
				return err
			}
		}
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return bp.PrepareAll(ctx, source, reqs)
}

// finish is Finish for a request PrepareAll prepared, holding mu only to
// look the request up, so that files ending together do not wait for each
// other's bookkeeping; it reports false for a request it does not know.
func (s *queueState) finish(mu *sync.Mutex, req *engine.Request, snap *engine.Snapshot, err error) (bool, error) {
	mu.Lock()
	id, ok := s.jobOf(req)
	batch := s.batch
	if ok && batch != nil {
		s.forget(req)
	}
	mu.Unlock()
	if !ok || batch == nil {
		return false, nil
	}
	if err == nil && snap != nil {
		// Files landing together share the batch's transaction; the job
		// is marked done once its source's files are through (getFiles).
		return true, batch.Landed(id, req.File.Name, snap)
	}
	return true, s.q.FinishFile(id, req.File.Name, snap, err)
}
