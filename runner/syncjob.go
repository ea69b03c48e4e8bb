package runner

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"braid/engine"
	"braid/engine/signature"
	"braid/queue"
)

// SyncJob is the run of a sync job (queue.NewJob.Sync) this runner has
// in hand or ran last: watched the way an engine.Download is, by polling
// Snapshot on a timer, never by a callback per byte (LiveSync).
type SyncJob struct {
	done chan struct{}
	res  *SyncResult
	err  error

	mu     sync.Mutex // guards the fields below
	active map[*FileRun]*engine.Snapshot
	counts map[SyncKind]int
	bytes  int64
	size   int64       // of the resources its lists name; -1 unknown
	events []SyncEvent // the latest maxSyncEvents, a ring: the oldest at next once full
	next   int
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
	// Size is what the lists read so far name, fetched or kept; -1: a
	// size not listed.
	Size int64
	// Files are the downloads in progress, sorted by name, as last heard
	// (at most a quarter of a second ago).
	Files []engine.Snapshot
	// Events are the latest outcomes, oldest first (at most 200).
	Events []SyncEvent
}

// runSync runs sync job j: Sync of its source into its folder, with the
// runner's client, locations and SyncOptions, its sets recorded as the
// job's. It stops when the job is paused or removed, as a download does.
// A sync that completes with files that failed is an error that says how
// many, so the job fails and Resume syncs again.
func (r *Runner) runSync(ctx context.Context, j queue.Job) error {
	client, err := r.client()
	if err != nil {
		return err
	}
	net, err := r.openNet(j.ID)
	if err != nil {
		return err
	}
	o := r.SyncOptions
	// The documents go the way the files do (Sync's Fetcher): the
	// client's network (its proxy) and the job's own settings.
	o.Client, o.Locations, o.Job, o.Net = client, r.locations(), j.ID, net
	sj := &SyncJob{done: make(chan struct{}), active: map[*FileRun]*engine.Snapshot{}, counts: map[SyncKind]int{}}
	o.sized = func(n int64) {
		sj.mu.Lock()
		if n < 0 || sj.size < 0 {
			sj.size = -1
		} else {
			sj.size += n
		}
		sj.mu.Unlock()
	}
	next := r.Observer
	if next == nil {
		next = Quiet{}
	}
	o.Observer = syncJobObserver{sj, next}
	r.mu.Lock()
	if r.syncs == nil {
		r.syncs = map[int64]*SyncJob{}
	}
	r.syncs[j.ID] = sj
	r.mu.Unlock()

	run, cancel, end := r.guardJob(ctx, j.ID)
	defer cancel(nil)
	sj.res, sj.err = Sync(run, r.Queue, r.Queue.Login(j.Source), j.Dest, o)
	cause := end()
	close(sj.done)
	switch {
	case errors.Is(cause, errUserPaused):
		return errUserPaused
	case sj.err != nil:
		return sj.err
	case !sj.res.OK():
		return fmt.Errorf("sync of %s: %s", queue.Redact(j.Source), syncCountsText(sj.res.Counts))
	}
	return nil
}

// syncCountsText says in short what a sync did: "3 fetched, 12 kept,
// 1 failed".
func syncCountsText(c map[SyncKind]int) string {
	var parts []string
	for _, k := range []SyncKind{SyncFetched, SyncKept, SyncFailed, SyncSkipped, SyncGone, SyncDeleted, SyncMissing, SyncChanged, SyncExtra} {
		if n := c[k]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, k))
		}
	}
	return strings.Join(parts, ", ")
}

// LiveSync returns the run of sync job id this runner has in hand, or ran
// last: false when it has run none. Safe for concurrent use.
func (r *Runner) LiveSync(id int64) (*SyncJob, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	sj, ok := r.syncs[id]
	return sj, ok
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
func (o syncJobObserver) Check(c CheckEvent)                        { o.next.Check(c) }

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
	if len(j.events) < maxSyncEvents {
		j.events = append(j.events, e)
		return
	}
	j.events[j.next] = e
	j.next = (j.next + 1) % maxSyncEvents
}

// Done is closed when the run has ended.
func (j *SyncJob) Done() <-chan struct{} { return j.done }

// Wait blocks until the run ends and returns Sync's result and error.
func (j *SyncJob) Wait() (*SyncResult, error) {
	<-j.done
	return j.res, j.err
}

// Snapshot returns the job's state now; it is safe to call from any
// goroutine, a few times a second.
func (j *SyncJob) Snapshot() SyncSnapshot {
	j.mu.Lock()
	s := SyncSnapshot{Counts: maps.Clone(j.counts), Bytes: j.bytes, Size: j.size, Events: slices.Concat(j.events[j.next:], j.events[:j.next])}
	for _, f := range j.active {
		c := *f
		c.Pieces, c.Filler, c.Mirrors = slices.Clone(f.Pieces), slices.Clone(f.Filler), slices.Clone(f.Mirrors)
		s.Files = append(s.Files, c)
	}
	j.mu.Unlock()
	slices.SortFunc(s.Files, func(a, b engine.Snapshot) int { return strings.Compare(a.Name, b.Name) })
	return s
}
