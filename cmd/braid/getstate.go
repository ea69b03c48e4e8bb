package main

import (
	"context"
	"fmt"
	"sync"

	"braid/engine"
	"braid/queue"
)

// The queue wiring of `braid get`: every file get downloads is a job in the
// queue, so running get again on the same source resumes it from what the
// journal recorded instead of starting over, and the window shows it.
func init() { openGetState = openQueueState }

// queueState implements getState over the queue.
type queueState struct {
	q     *queue.Queue
	mu    sync.Mutex                      // guards jobs: files prepare, check and finish side by side
	jobs  map[*engine.Request]*pendingJob // the job of each prepared request
	batch *queue.JournalBatch             // the journal of files prepared together (PrepareAll)
}

// pendingJob is the job of prepared requests: known when they are
// prepared, or, for a source the queue has not seen, recorded when first
// needed (see PrepareAll).
type pendingJob struct {
	once   sync.Once
	record func() (int64, error) // records the job; nil when it is known
	id     int64
	err    error
}

func knownJob(id int64) *pendingJob { return &pendingJob{id: id} }

// wait returns the job, recording it first if it is not yet, or why it
// could not be recorded.
func (p *pendingJob) wait() (int64, error) {
	p.once.Do(func() {
		if p.record != nil {
			p.id, p.err = p.record()
		}
	})
	return p.id, p.err
}

// openQueueState opens the queue; its notices (a damaged database moved
// aside and a new queue started) go to the user, who would otherwise find
// their queue empty without a word.
func openQueueState(dir string) (getState, []string, error) {
	d, err := queue.Dir(dir)
	if err != nil {
		return nil, nil, err
	}
	q, err := queue.Open(d)
	if err != nil {
		return nil, nil, err
	}
	return &queueState{q: q, jobs: map[*engine.Request]*pendingJob{}}, q.Notices(), nil
}

// Prepare stores the request's file with the job, and the origin's ETag
// and Referer too, so that the window or `braid queue run` can run the
// job later as get would.
func (s *queueState) Prepare(ctx context.Context, source string, req *engine.Request) error {
	origin := queue.Origin{ETag: req.OriginETag, Referer: req.Referer}
	id, done, err := s.q.PrepareFile(ctx, source, req.Dir, req.File, origin)
	if err != nil {
		return err
	}
	s.setJob(req, id)
	req.Done = done
	j, err := s.q.Get(id)
	if err != nil {
		return err
	}
	for _, f := range j.Files {
		if f.Name == req.File.Name {
			req.SaveAs, req.Landed = f.SavedAs, f.Verified && f.Created
		}
	}
	req.Journal = s.q.Journal(id)
	return nil
}

func (s *queueState) Finish(source string, req *engine.Request, snap *engine.Snapshot, err error) error {
	id, ok := s.jobOf(req)
	if !ok {
		return fmt.Errorf("%s: %s was not prepared", source, req.File.Name)
	}
	s.forget(req)
	return s.q.FinishFile(id, req.File.Name, snap, err)
}

func (s *queueState) Close() error { return s.q.Close() }

// jobOf is the job a prepared request belongs to, once it is recorded;
// false when the request was not prepared or its job could not be
// recorded.
func (s *queueState) jobOf(req *engine.Request) (int64, bool) {
	p := s.pendingOf(req)
	if p == nil {
		return 0, false
	}
	id, err := p.wait()
	return id, err == nil
}

// pendingOf is the job of a prepared request, recorded or not; nil when
// the request was not prepared.
func (s *queueState) pendingOf(req *engine.Request) *pendingJob {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.jobs[req]
}

func (s *queueState) setJob(req *engine.Request, id int64) { s.setPending(req, knownJob(id)) }

func (s *queueState) setPending(req *engine.Request, p *pendingJob) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.jobs[req] = p
}

func (s *queueState) forget(req *engine.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.jobs, req)
}
