package bridge

import (
	"sync"
	"time"

	"braid/engine"
	"braid/engine/metalink"
	"braid/engine/torrent"
	"braid/queue"
	"braid/ui"
)

// torrents is the bridge's BitTorrent side: the last reading of each
// torrent job. The client, the torrents running and those seeding are the
// runner's. Lock order: Backend.mu, then torrents.mu.
type torrents struct {
	mu   sync.Mutex
	last map[int64]*torrentReading
	// specs are the torrents Open resolved (a magnet's with its metadata),
	// by the document it returned, until Add stores the one picked with
	// its job; specOrder bounds them as maxOrigins bounds origins.
	specs     map[*metalink.Document]*torrent.Spec
	specOrder []*metalink.Document
}

// torrentReading is a torrent job's last snapshot and when it was taken.
// Its speeds (Speed, UpSpeed) are the engine's one measurement, which the
// Peers tab's rates add up to: never measured here.
type torrentReading struct {
	snap torrent.Snapshot
	at   time.Time
	// complete: the torrent had completed before snap was taken.
	complete bool
}

// keepSpec keeps the torrent Open resolved for doc until Add stores it
// with the job, so the job's runs read neither the .torrent again (it may
// be gone by then) nor a magnet's metadata from peers.
func (b *Backend) keepSpec(doc *metalink.Document, spec *torrent.Spec) {
	b.tor.mu.Lock()
	defer b.tor.mu.Unlock()
	if b.tor.specs == nil {
		b.tor.specs = map[*metalink.Document]*torrent.Spec{}
	}
	b.tor.specs[doc] = spec
	b.tor.specOrder = append(b.tor.specOrder, doc)
	if len(b.tor.specOrder) > maxOrigins {
		delete(b.tor.specs, b.tor.specOrder[0])
		b.tor.specOrder = b.tor.specOrder[1:]
	}
}

// takeSpec returns and forgets the torrent kept for doc, if any.
func (b *Backend) takeSpec(doc *metalink.Document) (*torrent.Spec, bool) {
	b.tor.mu.Lock()
	defer b.tor.mu.Unlock()
	spec, ok := b.tor.specs[doc]
	if ok {
		delete(b.tor.specs, doc)
		for i, d := range b.tor.specOrder {
			if d == doc {
				b.tor.specOrder = append(b.tor.specOrder[:i], b.tor.specOrder[i+1:]...)
				break
			}
		}
	}
	return spec, ok
}

// liveTorrentLocked returns the torrent job that job id runs or seeds
// now, if any.
func (b *Backend) liveTorrentLocked(id int64) (*torrent.Job, bool) {
	return b.runner.LiveTorrent(id)
}

// readTorrentLocked takes a fresh snapshot of job id's torrent, when it
// runs one, and keeps it as the job's last reading.
func (b *Backend) readTorrentLocked(id int64) (*torrentReading, bool) {
	tj, ok := b.liveTorrentLocked(id)
	if !ok {
		return nil, false
	}
	now := time.Now()
	complete := false
	select {
	case <-tj.Complete():
		complete = true
	default:
	}
	b.tor.mu.Lock()
	r := b.tor.last[id]
	if r != nil && now.Sub(r.at) < 200*time.Millisecond && (r.complete || !complete) && !r.at.Before(tj.MeasuredAt()) {
		// Read a moment ago (the row and the details ask in turn). Not
		// so when the torrent completed since: the runner's last word
		// on it must find it complete, or this reading, the one kept
		// once the runner lets go, would miss the last pieces. Nor when
		// the speeds were measured since (the Peers tab asked): the row
		// shows the measurement the peers' rates add up to.
		b.tor.mu.Unlock()
		return r, true
	}
	b.tor.mu.Unlock()
	snap := tj.Snapshot()
	b.tor.mu.Lock()
	defer b.tor.mu.Unlock()
	if b.tor.last == nil {
		b.tor.last = map[int64]*torrentReading{}
	}
	if r = b.tor.last[id]; r == nil {
		r = &torrentReading{}
		b.tor.last[id] = r
	}
	r.snap, r.at, r.complete = snap, now, complete
	return r, true
}

// refreshTorrentLocked is refreshLocked for a torrent job: the engine's
// snapshot of the whole torrent, and the job's state from its phase.
func (b *Backend) refreshTorrentLocked(id int64, l *live) bool {
	r, ok := b.readTorrentLocked(id)
	if !ok {
		return false
	}
	copySnapshot(&l.snap, &r.snap.Snapshot)
	for _, f := range r.snap.Files {
		st := engine.StateDownloading
		if f.Done {
			st = engine.StateDone
		}
		l.files[f.Name] = fileLive{bytes: f.Bytes, size: f.Size, state: st}
	}
	// The torrent as a whole, under its name: its speed, and the bytes of
	// a magnet's job, whose one file is named after the torrent until its
	// metadata is known.
	l.note(&l.snap)
	l.state = torrentState(r.snap.Phase, l.state)
	return true
}

// torrentState is how the window names a torrent's phase.
func torrentState(p torrent.Phase, otherwise ui.JobState) ui.JobState {
	switch p {
	case torrent.PhaseMetadata:
		return ui.FetchingMetadata
	case torrent.PhaseDownloading:
		return ui.Running
	case torrent.PhaseSeeding:
		return ui.Seeding
	}
	return otherwise
}

// torrentViewLocked adds a torrent's peers, ratio and upload rate to its
// row, from a fresh reading while it runs or seeds and from the last one
// after.
func (b *Backend) torrentViewLocked(v *ui.Job) {
	r, ok := b.readTorrentLocked(int64(v.ID))
	if !ok {
		b.tor.mu.Lock()
		r = b.tor.last[int64(v.ID)]
		b.tor.mu.Unlock()
		if r == nil {
			return
		}
	}
	v.Peers, v.Seeds, v.Ratio = r.snap.Peers, r.snap.Seeds, r.snap.Ratio
	if r.snap.Size >= 0 {
		if v.Size < 0 {
			// The size of a magnet queued before its metadata was
			// known, known once it arrived.
			v.Size = r.snap.Size
		}
		// The queue keeps a torrent's pieces apart from the HTTP
		// engine's: the bytes are the torrent's.
		v.Done = max(v.Done, r.snap.Bytes)
	}
	if ok {
		// Running or seeding now: the phase says more than the queue's
		// state (a seeding job is done in the queue).
		v.Upload = float64(r.snap.UpSpeed)
		v.State = torrentState(r.snap.Phase, v.State)
	}
}

// seedingLocked returns the rows of the jobs seeding past their run, for
// Active: their ratio and upload move while nothing else does.
func (b *Backend) seedingLocked() []ui.Job {
	var out []ui.Job
	for _, id := range b.runner.Seeding() {
		if j, ok := b.known[id]; ok && b.live[id] == nil && !b.stopped[id] {
			out = append(out, b.viewLocked(j))
		}
	}
	return out
}

// stopSeeding ends job id's seeding, when it seeds: a removed job sends
// nothing more.
func (b *Backend) stopSeeding(id int64) {
	b.runner.StopSeeding(id)
	b.tor.mu.Lock()
	delete(b.tor.last, id)
	b.tor.mu.Unlock()
}

// torrentDetail lays a multi-file torrent's snapshot over its files
// in the details: each file's bytes and its slice of the piece map,
// coloured by who sent each piece (the peers or a web seed). A
// single-file torrent's snapshot is the file's and needs nothing more.
func (b *Backend) torrentDetail(d *ui.Detail, pieces bool) {
	b.mu.Lock()
	b.tor.mu.Lock()
	r := b.tor.last[int64(d.ID)]
	var snap torrent.Snapshot
	if r != nil {
		snap = r.snap
	}
	b.tor.mu.Unlock()
	b.mu.Unlock()
	if r == nil || len(snap.Files) == 0 {
		return
	}
	for i := range d.Files {
		// Every piece of a torrent is checked against its SHA-1 on arrival.
		d.Files[i].PieceHash = "sha-1"
	}
	for i := range d.Files {
		if fd := &d.Files[i]; fd.Name == snap.Name {
			// A single-file torrent: the snapshot is the file's.
			applySnapshot(fd, &snap.Snapshot, pieces)
			return
		}
	}
	var offset int64
	for _, tf := range snap.Files {
		start := offset
		offset += tf.Size
		for i := range d.Files {
			fd := &d.Files[i]
			if fd.Name != tf.Name {
				continue
			}
			fd.Done = tf.Bytes
			if tf.Done {
				fd.State = ui.FileVerified
				fd.Verification = verifiedText(queue.ProofWords(cmpOr(snap.VerifiedBy, queue.ByTorrent)))
			} else if snap.Phase == torrent.PhaseDownloading {
				fd.State = ui.FileRunning
			}
			if snap.PieceLength <= 0 || tf.Size <= 0 {
				continue
			}
			first := int(start / snap.PieceLength)
			end := min(len(snap.Pieces), int((start+tf.Size+snap.PieceLength-1)/snap.PieceLength))
			if first >= end {
				continue
			}
			part := snap.Snapshot
			part.Name, part.Size, part.Bytes = tf.Name, tf.Size, tf.Bytes
			// The swarm's speed is the torrent's, not any one file's: a
			// file of several shows none rather than the whole speed.
			part.Speed, part.ETA = 0, -1
			part.Pieces = snap.Pieces[first:end]
			part.Filler = snap.Filler[first:end]
			state, verification, done := fd.State, fd.Verification, fd.Done
			applySnapshot(fd, &part, pieces)
			fd.State, fd.Verification, fd.Done = state, verification, done
		}
	}
}

// storedTorrentDetail shows the pieces of a torrent job that no runner
// holds now (done, paused or queued from an earlier session) as the
// torrent has them: its own piece length and count, done as the queue
// recorded them once verified. The job's files carry a metalink layout of
// 1 MiB pieces, which is not the torrent's: a done torrent's map read "0
// of 29 pieces done" beside "verified". A torrent running or seeding now
// is shown by torrentDetail.
func (b *Backend) storedTorrentDetail(d *ui.Detail, j queue.Job, pieces bool) {
	b.mu.Lock()
	b.tor.mu.Lock()
	live := b.tor.last[int64(d.ID)] != nil
	b.tor.mu.Unlock()
	b.mu.Unlock()
	if live {
		return
	}
	m, ok, err := b.q.TorrentMap(j)
	if err != nil || !ok {
		return
	}
	for i := range d.Files {
		fd := &d.Files[i]
		f, ok := m.File(fd.Name)
		if !ok {
			continue
		}
		first, end := m.Shape.PiecesOf(f)
		fd.PieceHash = "sha-1"
		fd.PieceLength, fd.PieceCount = m.Shape.PieceLength, end-first
		if !pieces {
			continue
		}
		fd.Pieces = ui.PieceMap{State: make([]ui.PieceState, end-first), Mirror: make([]int16, end-first)}
		for p := first; p < end; p++ {
			fd.Pieces.Mirror[p-first] = ui.NoMirror
			if m.Done[p] {
				fd.Pieces.State[p-first] = ui.PieceDone
			}
		}
	}
}

// uiTorrentSettings is the queue's BitTorrent settings as the settings
// dialog shows them.
func uiTorrentSettings(ts queue.TorrentSettings) ui.TorrentSettings {
	return ui.TorrentSettings{SeedRatio: ts.SeedRatio, Port: ts.Port, UploadLimit: ts.UploadLimit}
}
