// Package bridge joins Braid's window to its queue and engine: it
// implements ui.Backend over a queue.Queue (jobs, settings, piece
// bitfields) and a runner.Runner feeding an engine.Client, which a
// runner.Service keeps running. It is the only package that knows both sides; ui knows neither,
// and the queue and the engine do not know the window exists.
//
// Live progress is read from the engine itself: every Active or Detail
// call takes fresh snapshots of the running downloads (runner.Runner.LiveAll),
// so the window moves at its own 4 Hz; the runner's Observer (observe.go)
// only tells the bridge which jobs and files are in hand, and how each
// file ended. The runner runs
// several jobs, and several files of a job, at once: each job keeps its
// live row until the runner lets go of it, with the bytes and speed of
// its running files summed, and shows as waiting while every one of them
// waits for the network. The bridge's own verify
// and repair scans report in memory too, so the window's reads never
// touch the database while a download runs.
//
// Nothing the window shows carries URL credentials: the queue keeps them
// only in the mirrors it downloads from, and the bridge redacts every URL
// it passes on (queue.Redact).
//
// The files hold one concern each: bridge.go the lifecycle (the runner's
// service and the live progress it leaves), observe.go what the runner
// tells of its downloads, view.go the view models the
// window reads, commands.go what the window asks the queue to do,
// settings.go the settings, source.go how a source is read, check.go
// verify and repair.
package bridge

import (
	"context"
	"fmt"
	"sync"
	"time"

	"fyne.io/fyne/v2/lang"

	"braid/engine"
	"braid/engine/metalink"
	"braid/engine/netconf"
	"braid/queue"
	"braid/runner"
	"braid/ui"
)

var (
	_ ui.Backend  = (*Backend)(nil)
	_ ui.Notifier = (*Backend)(nil)
)

// Backend is ui.Backend over a queue and the engine. Its methods are safe
// for concurrent use. Start runs the queue; Close stops it and waits.
type Backend struct {
	q *queue.Queue
	// open reads a source into a document; see openSource.
	open func(ctx context.Context, source string) (*metalink.Document, error)

	mu    sync.Mutex
	live  map[int64]*live     // jobs being downloaded or checked now
	known map[int64]queue.Job // the last list, for Active
	// trust is what vouches for the jobs' files (hashes, signatures), by
	// job and file, as of the last list.
	trust   map[int64]map[string]queue.FileTrust
	stopped map[int64]bool // paused or removed while running: ignore late progress
	busy    bool           // the runner is working through the queue
	// recent keeps the last snapshot of files finished or left this
	// session, so their segment maps still say which mirror filled what.
	recent      map[fileKey]*engine.Snapshot
	recentOrder []fileKey
	// bad holds the pieces the last Verify found bad in each file, so the
	// segment map shows them bad until the file verifies again.
	bad map[fileKey][]int
	// notes say what this session's last check found of a file beyond
	// its outcome (check.go).
	notes map[fileKey]string
	// unrecorded says, by job, why this session's last check of it could
	// not record what it found (the queue refused the write).
	unrecorded map[int64]string
	// seedPaused holds the done torrents whose seeding the user paused:
	// they show paused, and Resume seeds them again.
	seedPaused map[int64]bool
	runner     *runner.Runner
	// svc keeps the queue running: the runner's loop, the schedule, the
	// client made from the settings.
	svc     *runner.Service
	scratch engine.Snapshot
	// net is the proxy setting every client shares (network.go).
	net *netconf.Network
	// openLogins are logins given to read documents, for their Add (login.go).
	openLogins map[*metalink.Document]runner.Login
	// origins are what the servers of plain URLs opened for the picker
	// said, until the picked document is added (see openSource).
	origins     map[*metalink.Document]queue.Origin
	originOrder []*metalink.Document
	// syncJobs are the sync jobs of known, and syncing those seen
	// running (activeSyncsLocked); syncDocs the documents Open read from
	// ResourceSync sources, with the source.
	syncJobs     []int64
	syncing      map[int64]bool
	syncDocs     map[*metalink.Document]string
	syncDocOrder []*metalink.Document
	tor          torrents // BitTorrent: the client, seeders, readings (torrent.go)
	org          organise // categories, actions when done (organise.go)
	rpc          remote   // aria2 JSON-RPC for remote control (remote.go)
	opener       openLive // files opened while they arrive (open.go)
	archives     archives // ZIP directories read for the picker (members.go)

	changes chan struct{} // tells the window the live jobs changed
	ctx     context.Context
	cancel  context.CancelFunc
	wg      sync.WaitGroup
}

// live is a job in progress: the runner's last word on it, or a check.
type live struct {
	job queue.Job // as the runner started it (with document and mirrors)
	// snap is the file the details show, as last read: the oldest of the
	// job's running files (runner.Runner.Live); slices owned by the bridge.
	snap engine.Snapshot
	// files is what each file the runner took up this session last said,
	// by name: the job's bytes and speed sum its running files.
	files map[string]fileLive
	// runs are the runner's downloads of the job's files, with the name
	// each was last told under (observe.go).
	runs     map[*runner.FileRun]string
	state    ui.JobState
	checking string // the file a verify or repair scan is on
	// mended of bad pieces are fetched again so far, in a repair.
	mended, bad int
	found       bool // the check found a file not right
}

// fileLive is one file of a live job, from its last snapshot.
type fileLive struct {
	bytes, size, speed int64
	skipping           int64 // Snapshot.Skipping
	state              engine.State
	nextTry            time.Time
	reason             string // why its mirrors wait, in StateWaiting
	held               string // Snapshot.Held: another program holds the file open
	rebuilding         int    // Snapshot.Rebuilding: pieces being rebuilt from parity
}

func newLive() *live {
	return &live{files: map[string]fileLive{}, runs: map[*runner.FileRun]string{}}
}

// note records what a snapshot of one of the job's files says.
func (l *live) note(s *engine.Snapshot) {
	f := fileLive{bytes: s.Bytes, size: s.Size, speed: s.Speed, skipping: s.Skipping, state: s.State, nextTry: s.NextTry, held: s.Held, rebuilding: s.Rebuilding}
	if s.State == engine.StateWaiting {
		for _, m := range s.Mirrors {
			if f.reason = m.Reason; f.reason != "" {
				break
			}
		}
	}
	l.files[s.Name] = f
}

// ended reports whether a file's download has ended.
func ended(s engine.State) bool {
	return s == engine.StateDone || s == engine.StateFailed || s == engine.StateCanceled
}

// New returns a backend over q that reads sources with open (nil: the
// way the command line reads them, keeping what a plain URL's server said
// for Add). It runs
// nothing until Start.
func New(q *queue.Queue, open func(ctx context.Context, source string) (*metalink.Document, error)) *Backend {
	b := &Backend{
		q:          q,
		open:       open,
		live:       map[int64]*live{},
		known:      map[int64]queue.Job{},
		stopped:    map[int64]bool{},
		recent:     map[fileKey]*engine.Snapshot{},
		bad:        map[fileKey][]int{},
		seedPaused: map[int64]bool{},
		origins:    map[*metalink.Document]queue.Origin{},
		syncing:    map[int64]bool{},
		syncDocs:   map[*metalink.Document]string{},
		changes:    make(chan struct{}, 1),
	}
	// A when-done action ends after its job's run: its note needs a reload.
	b.runner = &runner.Runner{Queue: q, Observer: observer{b}, ActionEnded: func(int64) { b.changed() }}
	// Every client shares the window's network, and one download budget
	// with the BitTorrent client.
	b.svc = runner.NewService(b.runner)
	b.svc.Network, b.svc.Busy = b.networkLocked(), b.setBusy
	b.runner.UseClient(b.svc.Client()) // its limiter is the torrents' budget too
	if b.open == nil {
		b.open = b.openSource
	}
	b.ctx, b.cancel = context.WithCancel(context.Background())
	b.loadSeedPaused() // seedpause.go
	return b
}

// Start begins running queued jobs, in queue order, in a goroutine that
// lives until Close; with run false it waits for the first Add or Resume.
// Only the queue's owner runs jobs: in a process that does not own the
// queue Start does nothing and reports why.
func (b *Backend) Start(run bool) error {
	if !b.q.Owner() {
		return fmt.Errorf(lang.L("run the queue %s: %w"), b.q.Path(), queue.ErrNotOwner)
	}
	b.seedAgain() // seedagain.go
	b.wg.Add(1)
	go func() {
		defer b.wg.Done()
		b.svc.Serve(b.ctx, run)
	}()
	return b.startRemoteFromSettings()
}

// Close stops the runner and any check under way and waits for them. The
// jobs in hand are paused with their progress kept, as Ctrl-C leaves a
// job of braid get; torrents stop seeding. It does not close the queue.
func (b *Backend) Close() error {
	b.cancel()
	b.wg.Wait()
	b.svc.Wait() // the checks
	b.stopRemote()
	_ = b.runner.Close() // at exit: the peers see the connections close either way
	return nil
}

// Wake runs the queue's jobs now, for a job another process added (the
// browsers' native host), and tells the window its list changed.
func (b *Backend) Wake() {
	b.loadSeedPaused() // braid queue resume may have seeded one again
	b.svc.Wake()
	b.changed()
}

// Changes tells the window when the runner takes up or lets go of a job
// and when a check begins or ends; see ui.Notifier.
func (b *Backend) Changes() <-chan struct{} { return b.changes }

func (b *Backend) changed() {
	select {
	case b.changes <- struct{}{}:
	default:
	}
	if srv := b.rpc.on.Load(); srv != nil {
		srv.Changed() // the remote control's clients hear of it too
	}
}

// setBusy is the service's word that a run starts (busy) or has
// stopped: the jobs it let go of keep their last snapshots.
func (b *Backend) setBusy(busy bool) {
	b.mu.Lock()
	b.busy = busy
	for id, l := range b.live {
		if !busy && l.checking == "" {
			b.keepLocked(id, &l.snap)
			delete(b.live, id)
		}
	}
	b.mu.Unlock()
	b.changed()
}

// refreshLocked reads the engine's snapshots of the files job id has
// running into l, when the runner is downloading any: what the window
// shows is what the engine says at the moment of the call. The oldest
// file's snapshot reuses the memory of the previous one, so a read on the
// window's ticker makes little garbage. It reports whether it read one.
func (b *Backend) refreshLocked(id int64, l *live) bool {
	if l.checking != "" {
		return false
	}
	if b.refreshTorrentLocked(id, l) {
		return true
	}
	dls := b.runner.LiveAll(id)
	for i, dl := range dls {
		dl.SnapshotInto(&b.scratch)
		l.note(&b.scratch)
		if i > 0 {
			continue
		}
		if l.snap.Name != "" && l.snap.Name != b.scratch.Name {
			b.keepLocked(id, &l.snap) // the runner is on the job's next file
		}
		l.snap, b.scratch = b.scratch, l.snap
	}
	return len(dls) > 0
}

// overLocked reports whether the runner has let go of a live job: no file
// of it runs now, its last file either failed or was the last the job
// needed, and the queue no longer says it runs (so the list read next
// shows how it ended). Between two files of a job that goes on, the job
// stays live. Only a job at its end costs a read of the queue.
func (b *Backend) overLocked(id int64, l *live) bool {
	if l.checking != "" || len(b.runner.LiveAll(id)) > 0 {
		return false
	}
	for _, f := range l.files {
		if !ended(f.state) {
			return false
		}
	}
	failed := false
	for _, f := range l.files {
		failed = failed || f.state != engine.StateDone
	}
	for _, f := range l.job.Files {
		if !failed && f.Selected && !f.Verified && l.files[f.Name].state != engine.StateDone {
			return false
		}
	}
	s, err := b.q.StateOf(id)
	return err != nil || s != queue.Running
}

// pruneLocked lets go of the live jobs the runner is done with, keeping
// their last snapshots, and reports whether it let go of any.
func (b *Backend) pruneLocked() bool {
	pruned := false
	for id, l := range b.live {
		if b.overLocked(id, l) {
			b.keepLocked(id, &l.snap)
			delete(b.live, id)
			pruned = true
		}
	}
	return pruned
}

// fileKey names one file of one job.
type fileKey struct {
	job  int64
	name string
}

// maxRecent bounds the snapshots kept of finished files: a few bytes per
// piece each.
const maxRecent = 32

// keepLocked remembers a copy of the last snapshot of a file.
func (b *Backend) keepLocked(job int64, s *engine.Snapshot) {
	if s.Name == "" {
		return
	}
	k := fileKey{job, s.Name}
	if _, ok := b.recent[k]; !ok {
		b.recentOrder = append(b.recentOrder, k)
	}
	c := new(engine.Snapshot)
	copySnapshot(c, s)
	b.recent[k] = c
	if len(b.recentOrder) > maxRecent {
		delete(b.recent, b.recentOrder[0])
		b.recentOrder = b.recentOrder[1:]
	}
}

func copySnapshot(dst, src *engine.Snapshot) {
	pieces, filler, mirrors := dst.Pieces, dst.Filler, dst.Mirrors
	*dst = *src
	dst.Pieces = append(pieces[:0], src.Pieces...)
	dst.Filler = append(filler[:0], src.Filler...)
	dst.Mirrors = append(mirrors[:0], src.Mirrors...)
}

func withoutDoc(j queue.Job) queue.Job {
	j.Doc = nil
	return j
}
