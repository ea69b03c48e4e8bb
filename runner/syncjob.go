package runner

import (
	"context"
	"maps"
	"slices"
	"strings"
	"sync"

	"braid/engine"
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
	active map[string]*engine.Download
	counts map[SyncKind]int
	bytes  int64
	events []SyncEvent // the latest maxSyncEvents, oldest first
}

// maxSyncEvents bounds the events a SyncJob keeps for its Snapshot.
const maxSyncEvents = 200

// SyncSnapshot is a SyncJob's state at one moment.
type SyncSnapshot struct {
	Counts map[SyncKind]int
	Bytes  int64 // downloaded by the files finished so far
	// Files are the downloads in progress, sorted by name.
	Files []engine.Snapshot
	// Events are the latest outcomes, oldest first (at most 200).
	Events []SyncEvent
}

// StartSync runs Sync in a goroutine the SyncJob owns and returns at once.
// o.Event and o.Started, when set, are still called. Cancel stops it.
func StartSync(ctx context.Context, q *queue.Queue, source, dir string, o SyncOptions) *SyncJob {
	ctx, cancel := context.WithCancel(ctx)
	j := &SyncJob{cancel: cancel, done: make(chan struct{}), active: map[string]*engine.Download{}, counts: map[SyncKind]int{}}
	event, started := o.Event, o.Started
	o.Event = func(e SyncEvent) {
		j.record(e)
		if event != nil {
			event(e)
		}
	}
	o.Started = func(name string, dl *engine.Download) {
		j.mu.Lock()
		j.active[name] = dl
		j.mu.Unlock()
		if started != nil {
			started(name, dl)
		}
	}
	go func() {
		defer close(j.done)
		defer cancel()
		j.res, j.err = Sync(ctx, q, source, dir, o)
	}()
	return j
}

func (j *SyncJob) record(e SyncEvent) {
	j.mu.Lock()
	defer j.mu.Unlock()
	delete(j.active, e.Name)
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
	dls := make([]*engine.Download, 0, len(j.active))
	for _, dl := range j.active {
		dls = append(dls, dl)
	}
	j.mu.Unlock()
	for _, dl := range dls {
		s.Files = append(s.Files, dl.Snapshot())
	}
	slices.SortFunc(s.Files, func(a, b engine.Snapshot) int { return strings.Compare(a.Name, b.Name) })
	return s
}
