// Package bridge joins Braid's window to its queue and engine: it
// implements ui.Backend over a queue.Queue (jobs, settings, piece
// bitfields) and a queue.Runner feeding an engine.Client, and it runs the
// runner. It is the only package that knows both sides; ui knows neither,
// and the queue and the engine do not know the window exists.
//
// Live progress is read from the engine itself: every Active or Detail
// call takes a fresh snapshot of the running download (queue.Runner.Live),
// so the window moves at its own 4 Hz; the runner's Progress callback only
// tells the bridge which job and file are in hand. The bridge's own verify
// and repair scans report in memory too, so the window's reads never
// touch the database while a download runs.
//
// Nothing the window shows carries URL credentials: the queue keeps them
// only in the mirrors it downloads from, and the bridge redacts every URL
// it passes on (queue.Redact).
package bridge

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path"
	"strconv"
	"strings"
	"sync"
	"time"

	"braid/engine"
	"braid/engine/metalink"
	"braid/engine/piece"
	"braid/engine/resolve"
	"braid/platform"
	"braid/queue"
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
	// Open reads a source into a document; see OpenSource.
	open func(ctx context.Context, source string) (*metalink.Document, error)
	// Workers is the number of goroutines hashing a file in Verify and
	// Repair; 0 uses every CPU.
	Workers int

	mu      sync.Mutex
	live    map[int64]*live     // jobs being downloaded or checked now
	known   map[int64]queue.Job // the last list, for Active
	stopped map[int64]bool      // paused or removed while running: ignore late progress
	busy    bool                // the runner is working through the queue
	// recent keeps the last snapshot of files finished or left this
	// session, so their segment maps still say which mirror filled what.
	recent      map[fileKey]*engine.Snapshot
	recentOrder []fileKey
	client      *engine.Client // for the next run; rebuilt when settings change
	runner      *queue.Runner  // the runner at work; nil between runs
	scratch     engine.Snapshot
	// origins are what the servers of plain URLs opened for the picker
	// said, until the picked document is added (see openSource).
	origins     map[*metalink.Document]queue.Origin
	originOrder []*metalink.Document

	wake    chan struct{} // wakes the runner loop
	changes chan struct{} // tells the window the live jobs changed
	ctx     context.Context
	cancel  context.CancelFunc
	wg      sync.WaitGroup
}

// live is a job in progress: the runner's last word on it, or a check.
type live struct {
	job       queue.Job       // as the runner started it (with document and mirrors)
	snap      engine.Snapshot // the file in hand, as last read; slices owned by the bridge
	fileBytes map[string]int64
	state     ui.JobState
	checking  string // the file a verify or repair scan is on
}

// New returns a backend over q that reads sources with open (nil:
// OpenSource, keeping what a plain URL's server said for Add). It runs
// nothing until Start.
func New(q *queue.Queue, open func(ctx context.Context, source string) (*metalink.Document, error)) *Backend {
	b := &Backend{
		q:       q,
		open:    open,
		live:    map[int64]*live{},
		known:   map[int64]queue.Job{},
		stopped: map[int64]bool{},
		recent:  map[fileKey]*engine.Snapshot{},
		origins: map[*metalink.Document]queue.Origin{},
		wake:    make(chan struct{}, 1),
		changes: make(chan struct{}, 1),
	}
	if b.open == nil {
		b.open = b.openSource
	}
	b.ctx, b.cancel = context.WithCancel(context.Background())
	return b
}

// Start begins running queued jobs, in queue order, in a goroutine that
// lives until Close; with run false it waits for the first Add or Resume.
// Only the queue's owner runs jobs: in a process that does not own the
// queue Start does nothing and reports why.
func (b *Backend) Start(run bool) error {
	if !b.q.Owner() {
		return fmt.Errorf("run the queue %s: %w", b.q.Path(), queue.ErrNotOwner)
	}
	b.wg.Add(1)
	go func() {
		defer b.wg.Done()
		b.runLoop(run)
	}()
	return nil
}

// Close stops the runner and any check under way and waits for them. The
// job in hand goes back to queued with its progress kept. It does not
// close the queue.
func (b *Backend) Close() error {
	b.cancel()
	b.wg.Wait()
	return nil
}

func (b *Backend) poke() {
	select {
	case b.wake <- struct{}{}:
	default:
	}
}

// Changes tells the window when the runner takes up or lets go of a job
// and when a check begins or ends; see ui.Notifier.
func (b *Backend) Changes() <-chan struct{} { return b.changes }

func (b *Backend) changed() {
	select {
	case b.changes <- struct{}{}:
	default:
	}
}

// runLoop runs the queue until it is empty, then sleeps until woken.
func (b *Backend) runLoop(run bool) {
	for {
		if !run {
			select {
			case <-b.ctx.Done():
				return
			case <-b.wake:
			}
		}
		run = false
		b.mu.Lock()
		b.busy = true
		c := b.clientLocked()
		b.mu.Unlock()
		b.changed()
		r := &queue.Runner{Queue: b.q, Client: c, Progress: b.progress}
		b.mu.Lock()
		b.runner = r
		b.mu.Unlock()
		// A job's own failure is recorded in the queue and shown on its
		// row; Run's joined error adds nothing the window does not show.
		_ = r.Run(b.ctx)
		b.mu.Lock()
		b.busy = false
		b.runner = nil
		for id, l := range b.live {
			if l.checking == "" {
				b.keepLocked(id, &l.snap)
				delete(b.live, id)
			}
		}
		b.mu.Unlock()
		b.changed()
		if b.ctx.Err() != nil {
			return
		}
	}
}

// clientLocked returns the engine client for the next run, made from the
// settings. A Client's limits are fixed once it has started a download,
// so a change of settings takes effect from the next job on.
func (b *Backend) clientLocked() *engine.Client {
	if b.client != nil {
		return b.client
	}
	c := &engine.Client{}
	if s, err := b.q.Settings(); err == nil {
		c = s.Client()
	}
	b.client = c
	return c
}

// refreshLocked reads the engine's snapshot of the file job id is on into
// l, when the runner is downloading one: what the window shows is what
// the engine says at the moment of the call. It reuses the memory of the
// previous snapshot, so a read on the window's ticker makes no garbage.
// It reports whether it read one.
func (b *Backend) refreshLocked(id int64, l *live) bool {
	if b.runner == nil || l.checking != "" {
		return false
	}
	dl, ok := b.runner.Live(id)
	if !ok {
		return false
	}
	dl.SnapshotInto(&b.scratch)
	if l.snap.Name != "" && l.snap.Name != b.scratch.Name {
		b.keepLocked(id, &l.snap) // the runner is on the job's next file
	}
	l.snap, b.scratch = b.scratch, l.snap
	l.fileBytes[l.snap.Name] = l.snap.Bytes
	return true
}

// progress is the runner's callback: it tells which job and file are in
// hand, and keeps a private copy of the snapshot (the runner reuses its
// slices) for when the runner has let go of the download.
func (b *Backend) progress(j queue.Job, s engine.Snapshot) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.stopped[j.ID] {
		return
	}
	for id, l := range b.live {
		if id != j.ID && l.checking == "" {
			b.keepLocked(id, &l.snap)
			delete(b.live, id) // the runner has moved on
		}
	}
	l := b.live[j.ID]
	if l == nil {
		l = &live{fileBytes: map[string]int64{}}
		b.live[j.ID] = l
		defer b.changed()
	}
	l.job, l.state = j, ui.Running
	// A fresh read when the download is live: s was taken before this
	// call waited for the lock, and may be older than what the window
	// was shown meanwhile.
	if !b.refreshLocked(j.ID, l) {
		if l.snap.Name != "" && l.snap.Name != s.Name {
			b.keepLocked(j.ID, &l.snap) // the next file of the job
		}
		copySnapshot(&l.snap, &s)
		l.fileBytes[s.Name] = s.Bytes
	}
	j.State = queue.Running
	b.known[j.ID] = withoutDoc(j)
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

// Jobs lists the queue, with live progress for the jobs in hand.
func (b *Backend) Jobs() ([]ui.Job, error) {
	list, err := b.q.List()
	if err != nil {
		return nil, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	clear(b.known)
	out := make([]ui.Job, len(list))
	for i, j := range list {
		b.known[j.ID] = j
		out[i] = b.viewLocked(j)
	}
	return out, nil
}

// Active returns the jobs in hand and, while the runner works through
// the queue, the queued jobs it will reach.
func (b *Backend) Active() []ui.Job {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []ui.Job
	for id, l := range b.live {
		if !b.stopped[id] {
			b.refreshLocked(id, l)
			out = append(out, b.viewLocked(l.job))
		}
	}
	if b.busy {
		for id, j := range b.known {
			if j.State == queue.Queued && b.live[id] == nil {
				out = append(out, b.viewLocked(j))
			}
		}
	}
	return out
}

// viewLocked is a job as the window shows it: the queue's record, with
// live bytes and speed when it is in hand.
func (b *Backend) viewLocked(j queue.Job) ui.Job {
	_, _, done, size := j.Progress()
	v := ui.Job{
		ID:       ui.JobID(j.ID),
		Name:     j.Name(),
		Source:   queue.Redact(j.Source),
		Dir:      j.Dest,
		State:    jobState(j.State),
		Size:     size,
		Done:     done,
		ETA:      -1,
		Mismatch: j.Mismatch,
		Err:      queue.Redact(j.Error),
	}
	if v.Name == "" {
		v.Name = v.Source
	}
	for _, f := range j.Files {
		if f.Selected && f.Size < 0 {
			v.Size = -1
		}
	}
	l := b.live[j.ID]
	if l == nil || b.stopped[j.ID] {
		return v
	}
	v.State = l.state
	if l.checking != "" {
		return v
	}
	v.Done = 0
	for _, f := range j.Files {
		if f.Selected {
			v.Done += max(f.DoneBytes, l.fileBytes[f.Name])
		}
	}
	if l.snap.Size >= 0 && v.Size >= 0 {
		// The size of a file the document did not give is known once a
		// mirror says.
		v.Size = max(v.Size, v.Done)
	}
	v.Speed = float64(l.snap.Speed)
	if v.Speed > 0 && v.Size > 0 {
		v.ETA = time.Duration(float64(v.Size-v.Done) / v.Speed * float64(time.Second))
	}
	return v
}

func jobState(s queue.State) ui.JobState {
	switch s {
	case queue.Queued:
		return ui.Queued
	case queue.Running:
		return ui.Running
	case queue.Paused:
		return ui.Paused
	case queue.Done:
		return ui.Done
	}
	return ui.Failed
}

// Detail returns one job's files, mirrors and, when asked, pieces: live for
// the file the engine is on, from the stored bitfield for the others.
func (b *Backend) Detail(id ui.JobID, pieces bool) (ui.Detail, error) {
	b.mu.Lock()
	l := b.live[int64(id)]
	var j queue.Job
	var view ui.Job
	var snap *engine.Snapshot
	if l != nil && l.job.Doc != nil && l.checking == "" {
		b.refreshLocked(int64(id), l)
		j = l.job
		view = b.viewLocked(j) // from the same reading as the files
		s := l.snap
		if pieces {
			// The copy keeps the window's view still while the next
			// read rewrites the bridge's.
			s.Pieces = append([]engine.PieceState(nil), l.snap.Pieces...)
			s.Filler = append([]int16(nil), l.snap.Filler...)
		}
		s.Mirrors = append([]engine.MirrorSnapshot(nil), l.snap.Mirrors...)
		snap = &s
	}
	b.mu.Unlock()
	if snap == nil {
		var err error
		if j, err = b.q.Get(int64(id)); err != nil {
			return ui.Detail{}, err
		}
		b.mu.Lock()
		view = b.viewLocked(j)
		b.mu.Unlock()
	}
	d := ui.Detail{Job: view, Origin: queue.Redact(j.Doc.Origin)}
	for _, f := range j.Files {
		if !f.Selected {
			continue
		}
		mf := docFile(j.Doc, f.Name)
		d.Publisher = cmpOr(d.Publisher, mf.Publisher.Name)
		d.Identity = cmpOr(d.Identity, mf.Identity)
		d.Version = cmpOr(d.Version, mf.Version)
		d.Description = cmpOr(d.Description, mf.Description)
		fd := fileDetail(j, f, mf)
		switch {
		case snap != nil && snap.Name == f.Name:
			applySnapshot(&fd, snap, pieces)
		case pieces:
			bits, _, err := b.q.Pieces(j.ID, f.Name)
			if err != nil {
				break
			}
			fd.Pieces = storedPieces(bits)
			b.mu.Lock()
			last := b.recent[fileKey{j.ID, f.Name}]
			b.mu.Unlock()
			if last != nil && len(last.Pieces) == bits.Len() {
				// Finished this session: who filled each piece is known.
				applyPast(&fd, last, bits)
			}
		}
		d.Files = append(d.Files, fd)
	}
	return d, nil
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func docFile(doc *metalink.Document, name string) metalink.File {
	if doc != nil {
		for _, f := range doc.Files {
			if f.Name == name {
				return f
			}
		}
	}
	return metalink.File{Name: name, Size: -1}
}

// fileDetail is a file as the queue remembers it.
func fileDetail(j queue.Job, f queue.File, mf metalink.File) ui.FileDetail {
	fd := ui.FileDetail{
		Name:        f.Name,
		Size:        f.Size,
		Done:        f.DoneBytes,
		ETA:         -1,
		Hashes:      f.Hashes,
		PieceLength: f.Layout.Length,
	}
	if mf.Pieces != nil {
		fd.PieceHash = mf.Pieces.Type
	}
	if mf.Signature != nil {
		fd.Signature = cmpOr(mf.Signature.MediaType, "signature")
	}
	switch {
	case f.Verified:
		fd.State = ui.FileVerified
		if h, ok := piece.Strongest(f.Hashes); ok {
			fd.Verification = h.Type + " matched"
		} else {
			fd.Verification = "complete; the document gives no hash Braid can check"
		}
	case f.Mismatch:
		fd.State, fd.Verification = ui.FileMismatch, "did not match its hash"
		if j.State == queue.Failed {
			fd.Err = queue.Redact(j.Error)
		}
	case j.State == queue.Running:
		fd.State = ui.FileRunning
	case j.State == queue.Failed:
		fd.State, fd.Err = ui.FileFailed, queue.Redact(j.Error)
	}
	for _, m := range f.Mirrors {
		fd.Mirrors = append(fd.Mirrors, ui.MirrorDetail{
			URL:      queue.Redact(m.URL),
			Host:     hostOf(m.URL),
			Location: m.Location,
			Priority: m.Priority,
			Strikes:  m.Strikes,
		})
	}
	return fd
}

// applySnapshot overlays the engine's live view of the file.
func applySnapshot(fd *ui.FileDetail, s *engine.Snapshot, pieces bool) {
	fd.Size, fd.Done, fd.Speed, fd.ETA = s.Size, s.Bytes, float64(s.Speed), s.ETA
	if s.PieceLength > 0 {
		fd.PieceLength = s.PieceLength
	}
	switch s.State {
	case engine.StateStarting, engine.StateDownloading:
		fd.State = ui.FileRunning
	case engine.StateWaiting:
		fd.State = ui.FileRunning
		fd.Err = fmt.Sprintf("waiting for the network, next try in %d s", int(time.Until(s.NextTry).Round(time.Second)/time.Second))
	case engine.StateVerifying:
		fd.State = ui.FileVerifying
	case engine.StateDone:
		fd.State = ui.FileVerified
	case engine.StateFailed:
		fd.State = ui.FileFailed
		if errors.Is(s.Err, engine.ErrHashMismatch) {
			fd.State = ui.FileMismatch
		}
	case engine.StateCanceled:
		fd.State = ui.FileWaiting
	}
	if s.Err != nil {
		fd.Err = queue.Redact(s.Err.Error())
	}
	if s.Checked {
		fd.Verification = fmt.Sprintf("%s of %s pieces checked against their hashes so far", count(s.Verified), count(len(s.Pieces)))
	}
	fd.Mirrors = fd.Mirrors[:0]
	for _, m := range s.Mirrors {
		fd.Mirrors = append(fd.Mirrors, ui.MirrorDetail{
			URL:      queue.Redact(m.URL),
			Host:     m.Host,
			Location: m.Location,
			Priority: m.Priority,
			State:    mirrorState(m.State),
			Speed:    float64(m.Speed),
			Bytes:    m.Bytes,
			Strikes:  m.Strikes,
			Err:      queue.Redact(m.Reason),
		})
	}
	if pieces {
		fd.Pieces = ui.PieceMap{State: make([]ui.PieceState, len(s.Pieces)), Mirror: s.Filler}
		for i, p := range s.Pieces {
			fd.Pieces.State[i] = ui.PieceState(p)
		}
	}
}

// applyPast shows which mirror filled each done piece of a file that the
// engine let go of this session; states come from the queue's bitfield,
// which is the truth now.
func applyPast(fd *ui.FileDetail, s *engine.Snapshot, bits *piece.Bitfield) {
	for i := range fd.Pieces.State {
		if bits.Has(i) && i < len(s.Filler) && s.Pieces[i] == engine.PieceDone {
			fd.Pieces.Mirror[i] = s.Filler[i]
		}
	}
	fd.Mirrors = fd.Mirrors[:0]
	for _, m := range s.Mirrors {
		fd.Mirrors = append(fd.Mirrors, ui.MirrorDetail{
			URL: queue.Redact(m.URL), Host: m.Host, Location: m.Location, Priority: m.Priority,
			State: ui.MirrorIdle, Bytes: m.Bytes, Strikes: m.Strikes, Err: queue.Redact(m.Reason),
		})
	}
}

func mirrorState(s engine.MirrorState) ui.MirrorState {
	switch s {
	case engine.MirrorActive:
		return ui.MirrorActive
	case engine.MirrorRetrying:
		return ui.MirrorWaiting
	case engine.MirrorDropped:
		return ui.MirrorDropped
	}
	return ui.MirrorIdle
}

// storedPieces shows a bitfield from the queue: done pieces, by no mirror
// of this session.
func storedPieces(bits *piece.Bitfield) ui.PieceMap {
	n := bits.Len()
	p := ui.PieceMap{State: make([]ui.PieceState, n), Mirror: make([]int16, n)}
	for i := range n {
		p.Mirror[i] = ui.NoMirror
		if bits.Has(i) {
			p.State[i] = ui.PieceDone
		}
	}
	return p
}

func hostOf(raw string) string {
	if h := queue.HostOf(raw); h != "" {
		return h
	}
	return queue.Redact(raw)
}

func count(n int) string { return strconv.Itoa(n) }

// Open reads a source for the picker.
func (b *Backend) Open(ctx context.Context, source string) (*metalink.Document, error) {
	return b.open(ctx, source)
}

// Add puts the picked files in the queue and wakes the runner. A document
// Open read from a plain URL is stored with what the URL's server said
// (its ETag, the Referer), so every run of the job sends them.
func (b *Backend) Add(_ context.Context, req ui.AddRequest) (ui.JobID, error) {
	if req.Doc == nil {
		return 0, fmt.Errorf("add %s: nothing was read from it", queue.Redact(req.Source))
	}
	if err := os.MkdirAll(req.Dir, 0o755); err != nil {
		return 0, fmt.Errorf("add %s: destination: %w", queue.Redact(req.Source), err)
	}
	b.mu.Lock()
	origin := b.origins[req.Doc]
	b.mu.Unlock()
	id, err := b.q.AddFrom(req.Source, req.Dir, req.Doc, req.Files, origin)
	if err != nil {
		return 0, err
	}
	if req.Paused {
		if err := b.q.Pause(id, ""); err != nil {
			return ui.JobID(id), err
		}
		return ui.JobID(id), nil
	}
	b.poke()
	return ui.JobID(id), nil
}

// Pause stops a job; the runner lets go of it within about a second.
func (b *Backend) Pause(id ui.JobID) error {
	if err := b.q.Pause(int64(id), ""); err != nil {
		return err
	}
	b.forget(id)
	return nil
}

// Resume queues a paused or failed job and wakes the runner.
func (b *Backend) Resume(id ui.JobID) error {
	if err := b.q.Resume(int64(id)); err != nil {
		return err
	}
	b.mu.Lock()
	delete(b.stopped, int64(id))
	b.mu.Unlock()
	b.poke()
	return nil
}

// Remove takes a job out of the queue; its files stay on disk.
func (b *Backend) Remove(id ui.JobID) error {
	if err := b.q.Remove(int64(id), false); err != nil {
		return err
	}
	b.forget(id)
	return nil
}

// forget drops a job's live progress; a late progress call for it (the
// runner's last word as it lets go) is ignored.
func (b *Backend) forget(id ui.JobID) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if l := b.live[int64(id)]; l != nil && l.checking == "" {
		delete(b.live, int64(id))
	}
	b.stopped[int64(id)] = true
}

// Move puts a job at index in the queue order.
func (b *Backend) Move(id ui.JobID, index int) error { return b.q.Move(int64(id), index) }

// Settings returns the settings, with the platform's defaults where the
// user has chosen nothing.
func (b *Backend) Settings() (ui.Settings, error) {
	s, err := b.q.Settings()
	if err != nil {
		return ui.Settings{}, err
	}
	def := platform.DefaultPrefs()
	out := ui.Settings{
		Dir:               s.DownloadDir,
		Languages:         s.Languages,
		OS:                s.OS,
		Countries:         s.Countries,
		MaxConns:          s.MaxConns,
		MaxConnsPerMirror: s.MaxConnsPerMirror,
		SpeedLimit:        s.SpeedLimit,
		StartOnLaunch:     s.StartOnLaunch,
	}
	if out.Languages == nil {
		out.Languages = def.Languages
	}
	if out.OS == nil {
		out.OS = def.OS
	}
	if out.Countries == nil {
		out.Countries = def.Locations
	}
	return out, nil
}

// SetSettings stores the settings; connection and speed limits apply from
// the next job on.
func (b *Backend) SetSettings(s ui.Settings) error {
	err := b.q.UpdateSettings(func(qs *queue.Settings) {
		qs.DownloadDir = s.Dir
		qs.Languages, qs.OS, qs.Countries = s.Languages, s.OS, s.Countries
		qs.MaxConns, qs.MaxConnsPerMirror = s.MaxConns, s.MaxConnsPerMirror
		qs.SpeedLimit, qs.StartOnLaunch = s.SpeedLimit, s.StartOnLaunch
	})
	if err != nil {
		return err
	}
	b.mu.Lock()
	b.client = nil
	b.mu.Unlock()
	return nil
}

// OpenSource reads a source the way the window offers it, with
// engine/resolve: a local .meta4 or .metalink file, the URL of one, or the
// plain URL of a file (read as Metalink/HTTP, so the server's mirrors and
// digests come along). Torrents are not supported yet.
func OpenSource(ctx context.Context, source string) (*metalink.Document, error) {
	doc, _, err := resolveSource(ctx, source)
	return doc, err
}

// maxOrigins bounds the origins kept of documents opened and not (yet)
// added: a picker the user closed leaves one behind.
const maxOrigins = 16

// openSource is OpenSource keeping what a plain URL's server said, for Add.
func (b *Backend) openSource(ctx context.Context, source string) (*metalink.Document, error) {
	doc, origin, err := resolveSource(ctx, source)
	if err != nil || origin == (queue.Origin{}) {
		return doc, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.origins[doc] = origin
	b.originOrder = append(b.originOrder, doc)
	if len(b.originOrder) > maxOrigins {
		delete(b.origins, b.originOrder[0])
		b.originOrder = b.originOrder[1:]
	}
	return doc, nil
}

// resolveSource reads a source and, for a plain URL, what its server said.
func resolveSource(ctx context.Context, source string) (*metalink.Document, queue.Origin, error) {
	ext := strings.ToLower(path.Ext(source))
	if u, err := url.Parse(source); err == nil && u.Host != "" {
		ext = strings.ToLower(path.Ext(u.Path))
	}
	if strings.HasPrefix(source, "magnet:") || ext == ".torrent" {
		return nil, queue.Origin{}, fmt.Errorf("%s: BitTorrent is not supported yet", queue.Redact(source))
	}
	res, err := resolve.Resolve(ctx, source, resolve.Options{})
	if err != nil {
		return nil, queue.Origin{}, err
	}
	doc := res.Document
	if doc.Origin == "" {
		doc.Origin = source
	}
	var origin queue.Origin
	if res.Origin != nil {
		origin = queue.Origin{ETag: res.Origin.ETag, Referer: res.Origin.URL}
	}
	return doc, origin, nil
}
