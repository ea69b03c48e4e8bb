package runner

import (
	"context"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"braid/engine"
	"braid/engine/signature"
	"braid/queue"
)

// SyncJob is a sync running in the background, for the window: it starts
// with StartSync and is watched the way an engine.Download is, by polling
// Snapshot on a timer, never by a callback per byte.
type SyncJob struct {
	cancel context.CancelFunc
	done   chan struct{}
	res    *SyncResult
	err    error

	mu     sync.Mutex // guards the fields below
	active map[*FileRun]*engine.Snapshot
	counts map[SyncKind]int
	bytes  int64
	events []SyncEvent // the latest maxSyncEvents, oldest first
}

// maxSyncEvents bounds the events a SyncJob keeps for its Snapshot.
const maxSyncEvents = 200

// syncJobEvery is how often a SyncJob hears of each download: as often as
// a window reads it.
const syncJobEvery = 250 * time.Millisecond

// SyncSnapshot is a SyncJob's state at one moment.
type SyncSnapshot struct {
	Counts map[SyncKind]int
	Bytes  int64 // downloaded by the files finished so far
	// Files are the downloads in progress, sorted by name, as last heard
	// (at most a quarter of a second ago).
	Files []engine.Snapshot
	// Events are the latest outcomes, oldest first (at most 200).
	Events []SyncEvent
}

// StartSync runs Sync in a goroutine the SyncJob owns and returns at once.
// The SyncJob is Sync's Observer; o.Observer, when set, still hears
// everything, its Progress four times a second. Cancel stops it.
func StartSync(ctx context.Context, q *queue.Queue, source, dir string, o SyncOptions) *SyncJob {
	ctx, cancel := context.WithCancel(ctx)
	j := &SyncJob{cancel: cancel, done: make(chan struct{}), active: map[*FileRun]*engine.Snapshot{}, counts: map[SyncKind]int{}}
	next := o.Observer
	if next == nil {
		next = quiet{}
	}
	o.Observer = syncJobObserver{j, next}
	go func() {
		defer close(j.done)
		defer cancel()
		j.res, j.err = Sync(ctx, q, source, dir, o)
	}()
	return j
}

// syncJobObserver is a SyncJob's Observer: it keeps the outcomes and the
// downloads' last snapshots, and passes everything on to next.
type syncJobObserver struct {
	j    *SyncJob
	next Observer
}

func (o syncJobObserver) Interval() time.Duration { return syncJobEvery }

func (o syncJobObserver) Start(f *FileRun) {
	o.j.mu.Lock()
	o.j.active[f] = &engine.Snapshot{Name: f.Name, Size: f.Size, State: engine.StateStarting}
	o.j.mu.Unlock()
	o.next.Start(f)
}

func (o syncJobObserver) Progress(f *FileRun, p Progress) {
	o.j.mu.Lock()
	if s := o.j.active[f]; s != nil {
		// The runner reuses p's slices: the copy has its own.
		pieces, filler, mirrors := s.Pieces, s.Filler, s.Mirrors
		*s = *p.Snapshot
		s.Pieces = append(pieces[:0], p.Snapshot.Pieces...)
		s.Filler = append(filler[:0], p.Snapshot.Filler...)
		s.Mirrors = append(mirrors[:0], p.Snapshot.Mirrors...)
	}
	o.j.mu.Unlock()
	o.next.Progress(f, p)
}

func (o syncJobObserver) Note(n Note) {
	o.j.record(nil, SyncEventOfNote(n), true)
	o.next.Note(n)
}

func (o syncJobObserver) Result(r Result) {
	e, ok := SyncEventOfResult(r)
	o.j.record(r.Run, e, ok)
	o.next.Result(r)
}

func (o syncJobObserver) Signature(f *FileRun, s signature.Outcome) { o.next.Signature(f, s) }

// record keeps an outcome, when ok, and lets go of run's download, when
// run is not nil.
func (j *SyncJob) record(run *FileRun, e SyncEvent, ok bool) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if run != nil {
		delete(j.active, run)
	}
	if !ok {
		return
	}
	j.counts[e.Kind]++
	j.bytes += e.Bytes
	if len(j.events) == maxSyncEvents {
		j.events = slices.Delete(j.events, 0, 1)
	}
	j.events = append(j.events, e)
}

// Done is closed when the sync has ended.
func (j *SyncJob) Done() <-chan struct{} { return j.done }

// Wait blocks until the sync ends and returns Sync's result and error.
func (j *SyncJob) Wait() (*SyncResult, error) {
	<-j.done
	return j.res, j.err
}

// Cancel stops the sync, waits for it to end and returns Wait's values.
// What was verified so far stays recorded; the next sync finishes the rest.
func (j *SyncJob) Cancel() (*SyncResult, error) {
	j.cancel()
	return j.Wait()
}

// Snapshot returns the job's state now; it is safe to call from any
// goroutine, a few times a second.
func (j *SyncJob) Snapshot() SyncSnapshot {
	j.mu.Lock()
	s := SyncSnapshot{Counts: maps.Clone(j.counts), Bytes: j.bytes, Events: slices.Clone(j.events)}
	for _, f := range j.active {
		c := *f
		c.Pieces, c.Filler, c.Mirrors = slices.Clone(f.Pieces), slices.Clone(f.Filler), slices.Clone(f.Mirrors)
		s.Files = append(s.Files, c)
	}
	j.mu.Unlock()
	slices.SortFunc(s.Files, func(a, b engine.Snapshot) int { return strings.Compare(a.Name, b.Name) })
	return s
}
