package runner

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"

	"braid/engine"
	"braid/engine/metalink"
	"braid/engine/netconf"
	"braid/engine/torrent"
	"braid/queue"
)

// The queue side of Get: every file get downloads is a job in the queue,
// so running get again on the same source resumes it from what the
// journal recorded instead of starting over, and the window shows it.

// queueState is what Get keeps in the queue. The queue opens in the
// background while get reads its sources (see openQueueState); whatever
// needs it waits for it.
type queueState struct {
	dir    string        // the state folder
	fresh  bool          // the folder held no queue when get began: nothing to resume
	opened chan struct{} // closed once the queue is open or could not be
	q      *queue.Queue  // set before opened is closed; nil if the open failed
	err    error         // why the queue could not be opened

	mu    sync.Mutex                      // guards jobs and batch: files prepare, check and finish side by side
	jobs  map[*engine.Request]*pendingJob // the job of each prepared request
	batch *queue.JournalBatch             // the journal of files prepared together (PrepareAll)

	// net is the get's logins, cookies and headers, kept with each job it
	// creates or resumes (nil: the jobs keep what they had); said tells
	// the user a sentence about keeping them (no keyring here).
	net  *netconf.Session
	said func(string)
}

// keepNet keeps the get's network settings with job id. Failing to keep
// them costs only a resume elsewhere without them, so it is said, not
// returned.
func (s *queueState) keepNet(q *queue.Queue, id int64) {
	if s.net == nil {
		return
	}
	note, err := q.SetNet(id, s.net.Settings(), true)
	if err != nil {
		note = err.Error()
	}
	if note != "" && s.said != nil {
		s.said(note)
	}
}

// queue waits for the queue to be open and returns it, or why it could
// not be opened.
func (s *queueState) queue() (*queue.Queue, error) {
	<-s.opened
	return s.q, s.err
}

// open is the queue behind a recorded job (a job is recorded only once
// the queue is open).
func (s *queueState) open() *queue.Queue {
	q, _ := s.queue()
	return q
}

// journalBatch is the batch of q that PrepareAll's files journal through,
// made on first use.
func (s *queueState) journalBatch(q *queue.Queue) *queue.JournalBatch {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.batch == nil {
		s.batch = q.NewJournalBatch()
	}
	return s.batch
}

// pendingJob is the job of prepared requests: known when they are
// prepared, or, for a source the queue has not seen, recorded when first
// needed (see PrepareAll).
type pendingJob struct {
	once     sync.Once
	record   func() (int64, error) // records the job; nil when it is known
	id       int64
	err      error
	recorded atomic.Bool // wait has returned a job
}

// wait returns the job, recording it first if it is not yet, or why it
// could not be recorded.
func (p *pendingJob) wait() (int64, error) {
	p.once.Do(func() {
		if p.record != nil {
			p.id, p.err = p.record()
		}
		p.recorded.Store(p.err == nil)
	})
	return p.id, p.err
}

// known returns the job once it is recorded, without recording it: a job
// not yet in the queue is nobody else's to pause.
func (p *pendingJob) known() (int64, bool) {
	if !p.recorded.Load() {
		return 0, false
	}
	id, err := p.wait()
	return id, err == nil
}

// openQueueState starts opening the queue in the state folder dir and
// returns at once, so that get reads its sources meanwhile (opening, and
// for a new folder creating, the database takes longer than parsing a
// metalink). When the open is through, opened gets its notices (a damaged
// database moved aside and a new queue started: the user would otherwise
// find their queue empty without a word) or its error, before anything
// waiting for the queue goes on.
func openQueueState(dir string, openQueue func(string) (*queue.Queue, error), opened func(notices []string, err error)) (*queueState, error) {
	d, err := queue.Dir(dir)
	if err != nil {
		return nil, err
	}
	_, err = os.Lstat(filepath.Join(d, queue.DBName))
	s := &queueState{
		dir:    d,
		fresh:  errors.Is(err, fs.ErrNotExist),
		opened: make(chan struct{}),
		jobs:   map[*engine.Request]*pendingJob{},
	}
	go func() {
		defer close(s.opened)
		q, err := openQueue(d)
		if err != nil {
			s.err = err
			opened(nil, err)
			return
		}
		s.q = q
		opened(q.Notices(), nil)
	}()
	return s, nil
}

// finishCause is a download's error as the queue records it: a problem
// with the destination the user can fix is a pause (destProblem), which
// names the folder as the job stores it (absolute).
func finishCause(req *engine.Request, err error) error {
	if err == nil {
		return nil
	}
	dir, aerr := filepath.Abs(req.Dir)
	if aerr != nil {
		dir = req.Dir
	}
	return destProblem(dir, err)
}

// Close closes the queue once it is open; a queue that could not be
// opened has nothing to close.
func (s *queueState) Close() error {
	q, err := s.queue()
	if err != nil {
		return nil
	}
	return q.Close()
}

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

// PrepareAll stores every request's file of one source, and doc's own facts
// (its origin, whether it is dynamic), with its job, and
// the origin's ETag and Referer, in one pass over the queue
// (prepareFiles), so that the window or `braid queue run` can run the job
// later as get would; the files record their pieces through one journal
// batch. A source the queue has not seen has nothing to
// resume, so its requests are ready as they are, and the job is recorded
// when first needed: by the first journal round or the first file's end.
// Recording a large source takes longer than its first bytes do, and done
// at once it would hold back the first requests on a small machine. A get
// killed before then leaves no job, and the next one finds the pieces
// through their piece logs. In a state folder that held no queue when get
// began no source can be known, and its files need not even wait for the
// queue to be created.
func (s *queueState) PrepareAll(ctx context.Context, source string, doc *metalink.Document, reqs []*engine.Request) error {
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
		if _, known, err = q.JobFor(source, r0.Dir); err != nil {
			return err
		}
	}
	if !known {
		dir, inOrder := r0.Dir, r0.InOrder
		p := &pendingJob{record: func() (int64, error) {
			id, err := s.record(ctx, source, dir, doc, files, origin)
			if err == nil {
				s.keepInOrder(s.open(), id, inOrder) // inorder.go
			}
			return id, err
		}}
		for _, r := range reqs {
			s.setPending(r, p)
			r.Journal = pendingJournal{p: p, s: s}
		}
		return nil
	}
	id, done, err := prepareFiles(ctx, q, source, r0.Dir, doc, files, origin)
	if err != nil {
		return err
	}
	s.keepNet(q, id)
	inOrder := s.keepInOrder(q, id, r0.InOrder) // inorder.go
	// The round that lands the job's last file marks it done as well;
	// getFiles' FinishIfComplete then finds nothing to write.
	b := s.journalBatch(q)
	b.FinishWhenLanded(id)
	stored, err := q.Saved(id)
	if err != nil {
		return err
	}
	p := &pendingJob{id: id}
	for i, r := range reqs {
		s.setPending(r, p)
		r.Done = done[i]
		r.Journal = b.Journal(id)
		r.InOrder = inOrder
		f := stored[r.File.Name]
		r.SaveAs, r.Landed = f.SavedAs, f.Verified && f.Created
	}
	return nil
}

// record records a new source's job for PrepareAll while its files
// download, once the queue is open. Another braid that recorded the same
// source in the meantime may have recorded pieces these downloads did not
// start from: then the job is not taken.
func (s *queueState) record(ctx context.Context, source, dir string, doc *metalink.Document, files []metalink.File, origin queue.Origin) (int64, error) {
	q, err := s.queue()
	if err != nil {
		return 0, err
	}
	id, done, err := prepareFiles(ctx, q, source, dir, doc, files, origin)
	if err != nil {
		return 0, err
	}
	for i, d := range done {
		if d != nil {
			return 0, fmt.Errorf("%s: another braid began the same download at the same time; run get again to resume it", files[i].Name)
		}
	}
	s.keepNet(q, id)
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

func (j pendingJournal) KeptBytes(file string, n int64) error {
	jr, err := j.journal()
	if err != nil {
		return err
	}
	if kj, ok := jr.(engine.KeptJournal); ok {
		return kj.KeptBytes(file, n)
	}
	return nil
}

// finish records how a prepared request's download ended, holding mu
// only to look the request up, so that files ending together do not wait
// for each other's bookkeeping.
func (s *queueState) finish(mu *sync.Mutex, req *engine.Request, snap *engine.Snapshot, err error) error {
	mu.Lock()
	p := s.pendingOf(req)
	s.forget(req)
	mu.Unlock()
	if p == nil {
		return fmt.Errorf("%s was not prepared", req.File.Name)
	}
	id, perr := p.wait()
	if perr != nil {
		return perr
	}
	if err == nil && snap != nil {
		// Files landing together share the batch's transaction; the job
		// is marked done once its source's files are through (getFiles).
		return s.journalBatch(s.open()).Landed(id, req.File.Name, snap)
	}
	return s.open().FinishFile(id, req.File.Name, snap, finishCause(req, err))
}

// TorrentPieces gives BitTorrent downloads the queue's piece completion
// for dir, so get on the same torrent resumes it after a stop or a crash.
func (s *queueState) TorrentPieces(dir string) (torrent.Completion, error) {
	q, err := s.queue()
	if err != nil {
		return nil, err
	}
	return q.TorrentPieces(dir)
}
