package main

import (
	"context"
	"fmt"
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
// one journal batch. A source the queue has not seen has nothing to
// resume, so its requests are ready as they are, and the job is recorded
// when first needed: by the first journal round or the first file's end.
// Recording a large source takes longer than its first bytes do, and done
// at once it would hold back the first requests on a small machine. A get
// killed before then leaves no job, and the next one finds the pieces
// through their piece logs. In a state folder that held no queue when get
// began no source can be known, and its files need not even wait for the
// queue to be created.
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
	var q *queue.Queue // nil while a fresh folder's queue is being created
	known := false
	if !s.fresh {
		var err error
		if q, err = s.queue(); err != nil {
			return err
		}
		if known, err = q.Known(source, r0.Dir); err != nil {
			return err
		}
	}
	if !known {
		dir := r0.Dir
		p := &pendingJob{batched: true, record: func() (int64, error) {
			return s.record(ctx, source, dir, files, origin)
		}}
		for _, r := range reqs {
			s.setPending(r, p)
			r.Journal = pendingJournal{p: p, s: s}
		}
		return nil
	}
	id, done, err := q.PrepareFiles(ctx, source, r0.Dir, files, origin)
	if err != nil {
		return err
	}
	// The round that lands the job's last file marks it done as well;
	// getFiles' FinishIfComplete then finds nothing to write.
	b := s.journalBatch(q)
	b.FinishWhenLanded(id)
	stored, err := q.Saved(id)
	if err != nil {
		return err
	}
	p := &pendingJob{id: id, batched: true}
	for i, r := range reqs {
		s.setPending(r, p)
		r.Done = done[i]
		r.Journal = b.Journal(id)
		f := stored[r.File.Name]
		r.SaveAs, r.Landed = f.SavedAs, f.Verified && f.Created
	}
	return nil
}

// record records a new source's job for PrepareAll while its files
// download, once the queue is open. Another braid that recorded the same
// source in the meantime may have recorded pieces these downloads did not
// start from: then the job is not taken.
func (s *queueState) record(ctx context.Context, source, dir string, files []metalink.File, origin queue.Origin) (int64, error) {
	q, err := s.queue()
	if err != nil {
		return 0, err
	}
	id, done, err := q.PrepareFiles(ctx, source, dir, files, origin)
	if err != nil {
		return 0, err
	}
	for i, d := range done {
		if d != nil {
			return 0, fmt.Errorf("%s: another braid began the same download at the same time; run get again to resume it", files[i].Name)
		}
	}
	s.journalBatch(q).FinishWhenLanded(id)
	return id, nil
}

// pendingJournal is the journal of a job not yet recorded: its first call
// records it, and every call goes to the batch once it is.
type pendingJournal struct {
	p *pendingJob
	s *queueState
}

var _ engine.JournalResetter = pendingJournal{}

// journal is the job's journal in the batch, once the job is recorded.
func (j pendingJournal) journal() (engine.JournalResetter, error) {
	id, err := j.p.wait()
	if err != nil {
		return nil, err
	}
	return j.s.journalBatch(j.s.open()).Journal(id), nil
}

func (j pendingJournal) PiecesDone(file string, pieces []int) error {
	jr, err := j.journal()
	if err != nil {
		return err
	}
	return jr.PiecesDone(file, pieces)
}

func (j pendingJournal) Reset(file string) error {
	jr, err := j.journal()
	if err != nil {
		return err
	}
	return jr.Reset(file)
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
	p := s.pendingOf(req)
	if p != nil && p.batched {
		s.forget(req)
	}
	mu.Unlock()
	if p == nil || !p.batched {
		return false, nil
	}
	id, perr := p.wait()
	if perr != nil {
		return true, perr
	}
	if err == nil && snap != nil {
		// Files landing together share the batch's transaction; the job
		// is marked done once its source's files are through (getFiles).
		return true, s.journalBatch(s.open()).Landed(id, req.File.Name, snap)
	}
	return true, s.open().FinishFile(id, req.File.Name, snap, err)
}
