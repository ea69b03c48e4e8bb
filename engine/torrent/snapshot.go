package torrent

import (
	"net/url"
	"time"

	"braid/engine"
)

// Phase is where a torrent job is, in the words of DESIGN's job states.
type Phase uint8

const (
	// PhaseMetadata: a magnet link's metadata is being fetched from peers.
	PhaseMetadata Phase = iota
	// PhaseDownloading: pieces are being fetched (and checked on arrival).
	PhaseDownloading
	// PhaseSeeding: every selected file is done; uploading to peers until
	// the seed ratio or time is reached.
	PhaseSeeding
	// PhaseDone: every selected file is at its final name, verified.
	PhaseDone
	// PhaseFailed: see Job.Err.
	PhaseFailed
	// PhaseCanceled: the job's context ended; completion is kept.
	PhaseCanceled
)

var phaseNames = [...]string{"fetching metadata", "downloading", "seeding", "done", "failed", "canceled"}

func (p Phase) String() string {
	if int(p) < len(phaseNames) {
		return phaseNames[p]
	}
	return "unknown"
}

// engineState maps a phase onto the HTTP engine's states, for code that
// shows both kinds of download the same way.
func (p Phase) engineState() engine.State {
	switch p {
	case PhaseMetadata:
		return engine.StateStarting
	case PhaseDownloading:
		return engine.StateDownloading
	case PhaseSeeding, PhaseDone:
		return engine.StateDone
	case PhaseFailed:
		return engine.StateFailed
	}
	return engine.StateCanceled
}

// sourcePeers is the snapshot's name for the swarm: every peer together.
const sourcePeers = "peers"

// Snapshot is a torrent job at one moment, in the shape of an HTTP
// download's: engine.Snapshot covers the selected files as one (Name is
// the torrent's name, Size the selected bytes), its Mirrors are the swarm
// (index 0, URL "peers") and then each web seed, and Filler colours each
// piece by the one that sent it. It is a copy the caller owns.
type Snapshot struct {
	engine.Snapshot
	Phase Phase
	// Peers is how many peers are connected, Seeds how many of them have
	// the whole torrent.
	Peers, Seeds int
	// Uploaded is what was sent to peers, in this run and the earlier
	// ones (Request.Seeded); Ratio is Uploaded over the selected size.
	Uploaded int64
	Ratio    float64
	// UpSpeed is the upload rate, bytes per second, measured as Speed
	// (the download rate) and each peer's rates are (rates.go).
	UpSpeed int64
	Files   []File
}

// Snapshot returns the job's progress. Before the metadata is known Size
// is -1 and Pieces is empty.
func (j *Job) Snapshot() Snapshot {
	j.mu.Lock()
	t, ts, phase, err, held := j.t, j.ts, j.phase, j.err, j.held
	sel := j.selected
	files := append([]File(nil), j.files...)
	sources := append([]string(nil), j.sources...)
	filler := append([]int16(nil), j.filler...)
	start := j.start
	j.mu.Unlock()

	var s Snapshot
	s.Phase = phase
	s.State = phase.engineState()
	if held != "" && s.State == engine.StateDownloading {
		// Every byte is there; a file waits for another program to
		// close it before it gets its name.
		s.State, s.Held = engine.StateWaiting, held
	}
	s.Err = err
	s.Name = j.req.Spec.Name
	s.Size = -1
	s.ETA = -1
	s.Attempt = 1
	s.Elapsed = time.Since(start)
	s.Checked = true
	s.Files = files

	st := t.Stats()
	r := j.rates()
	s.Peers, s.Seeds = st.ActivePeers, st.ConnectedSeeders
	s.UpSpeed = int64(r.up)
	s.Uploaded = st.BytesWrittenData.Int64() + j.req.Seeded.Uploaded
	s.Mirrors = make([]engine.MirrorSnapshot, len(sources))
	s.Mirrors[0] = engine.MirrorSnapshot{
		URL: sourcePeers, Host: sourcePeers, Priority: 1,
		Conns:  st.ActivePeers,
		Bytes:  st.PeerConns.BytesReadData.Int64(),
		Useful: st.PeerConns.BytesReadUsefulData.Int64(),
		Speed:  int64(r.peersDown),
	}
	if st.ActivePeers > 0 {
		s.Mirrors[0].State = engine.MirrorActive
	}
	for k, u := range sources[1:] {
		s.Mirrors[k+1] = engine.MirrorSnapshot{URL: u, Host: hostOf(u), Priority: 1}
	}
	if ts == nil || sel == nil {
		return s
	}
	info := t.Info()
	s.Name = info.BestName()
	s.PieceLength = info.PieceLength
	for _, p := range t.WebseedPeerConns() {
		if p.RemoteAddr == nil {
			continue
		}
		for k := 1; k < len(sources); k++ {
			if hostOf(sources[k]) == p.RemoteAddr.String() {
				ps := p.Stats()
				m := &s.Mirrors[k]
				m.Bytes += ps.BytesReadData.Int64()
				m.Useful += ps.BytesReadUsefulData.Int64()
				// Measured as the torrent's speed is, not the library's
				// DownloadRate (which counts only the moments it
				// waited for a chunk).
				rate := int64(r.conns[p].down)
				m.Speed += rate
				if rate > 0 {
					m.State, m.Conns = engine.MirrorActive, m.Conns+1
				}
			}
		}
	}

	// Pieces of the selected files only; the others stay missing.
	n := info.NumPieces()
	wanted := make([]bool, n)
	var size int64
	for i, sp := range ts.spans {
		if !sel[i] {
			continue
		}
		size += sp.length
		for p := sp.first; p < sp.end; p++ {
			wanted[p] = true
		}
	}
	s.Size = size
	s.Pieces = make([]engine.PieceState, n)
	s.Filler = make([]int16, n)
	i := 0
	for _, run := range t.PieceStateRuns() {
		var ps engine.PieceState
		switch {
		case run.Complete:
			ps = engine.PieceDone
		case run.Hashing || run.QueuedForHash || run.Marking || run.Partial:
			ps = engine.PieceActive
		}
		for k := 0; k < run.Length && i < n; k, i = k+1, i+1 {
			if wanted[i] {
				s.Pieces[i] = ps
			}
			s.Filler[i] = -1
			if i < len(filler) && (s.Pieces[i] == engine.PieceDone || s.Pieces[i] == engine.PieceActive) {
				s.Filler[i] = filler[i]
			}
			if s.Pieces[i] == engine.PieceDone {
				s.Verified++
			}
		}
	}
	for k := range files {
		for i, sp := range ts.spans {
			if sp.name == files[k].Name && !sp.pad {
				files[k].Done = ts.finished(i)
			}
		}
	}
	for i, f := range t.Files() {
		if i < len(ts.spans) && sel[i] {
			s.Bytes += f.BytesCompleted()
		}
		for k := range files {
			if i < len(ts.spans) && files[k].Name == ts.spans[i].name && !ts.spans[i].pad {
				files[k].Bytes = f.BytesCompleted()
			}
		}
	}
	if size > 0 {
		s.Ratio = float64(s.Uploaded) / float64(size)
	}
	s.Speed = int64(r.down)
	if s.Speed > 0 && phase == PhaseDownloading {
		s.ETA = time.Duration(float64(size-s.Bytes) / float64(s.Speed) * float64(time.Second))
	}
	if phase == PhaseSeeding || phase == PhaseDone {
		s.ETA = 0
		// Every piece matched the torrent's SHA-1; a metalink's own
		// whole-file hash was checked too where it gave one.
		s.VerifiedBy = "sha-1 pieces of the torrent"
		if len(j.req.Spec.Hashes) > 0 {
			s.VerifiedBy += " and the metalink's hash"
		}
		s.SavedAs = s.Name
		s.Created = s.Mirrors[0].Useful > 0 || usefulWebSeeds(s.Mirrors) > 0
	}
	return s
}

func usefulWebSeeds(ms []engine.MirrorSnapshot) int64 {
	var n int64
	for _, m := range ms[1:] {
		n += m.Useful
	}
	return n
}

func hostOf(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return ""
	}
	return u.Host
}
