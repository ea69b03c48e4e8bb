package torrent

import (
	"sync"
	"time"

	"github.com/anacrolix/torrent"
)

// Every rate a torrent job shows (its download and upload speed in
// Snapshot, each peer's and each web seed's in Peers and the mirrors) is
// one measurement: the byte counters of the torrent and of each of its
// connections, read together at one moment (a sample), and compared with
// the sample rateWindow before. So a torrent's speed is its connections'
// together, whoever asks and however often.
//
// Before, the torrent's speed was an average over about two seconds of
// whoever took snapshots, the peers' over five seconds of the Peers tab's
// calls: with a limit, bytes arrive in bursts (the limiter's bucket), and
// the two read 14.7 and 26.1 KB/s for one peer at the same moment.

// rateWindow is how far back the rates look: a rate held by a limiter
// arrives in bursts, which one second would show as all or nothing.
const rateWindow = 5 * time.Second

// rateEvery is the least time between two samples: every reading within
// it gets the same rates, so a row, a header and a peers list drawn in
// one refresh agree to the byte. It also bounds the cost: one pass over
// the connections a second at most, and none while nobody looks.
const rateEvery = time.Second

// rateSample is what the counters said at one moment.
type rateSample struct {
	at        time.Time
	down      int64 // useful bytes received, from every source
	peersDown int64 // useful bytes received from peers
	up        int64 // piece bytes sent
	conns     map[*torrent.Peer]connCount
}

// connCount is one connection's counters at a sample.
type connCount struct{ read, written int64 }

// Rates are a torrent's speeds over the last rateWindow, in bytes per
// second.
type rates struct {
	down, peersDown, up float64
	conns               map[*torrent.Peer]connRate
}

// connRate is one connection's speeds.
type connRate struct{ down, up float64 }

// rateMeter keeps a torrent job's samples. Its lock is never held by the
// library's callbacks, so it may be held across the library's calls.
type rateMeter struct {
	mu      sync.Mutex
	samples []rateSample
	last    rates
}

// rates returns the torrent's speeds now: the last sample's when it is
// less than rateEvery old, else from a new one.
func (j *Job) rates() rates {
	m := &j.meter
	m.mu.Lock()
	defer m.mu.Unlock()
	now := time.Now()
	if n := len(m.samples); n > 0 && now.Sub(m.samples[n-1].at) < rateEvery {
		return m.last
	}
	cur := sampleOf(j.t, now)
	m.samples = append(m.samples, cur)
	// The oldest kept is the newest at least rateWindow old.
	for len(m.samples) > 2 && now.Sub(m.samples[1].at) >= rateWindow {
		m.samples[0] = rateSample{}
		m.samples = m.samples[1:]
	}
	m.last = between(m.samples[0], cur)
	return m.last
}

// MeasuredAt is when the job's rates were last measured: a snapshot
// taken before it shows older speeds than a Snapshot or Peers now would.
// Safe for concurrent use.
func (j *Job) MeasuredAt() time.Time {
	m := &j.meter
	m.mu.Lock()
	defer m.mu.Unlock()
	if n := len(m.samples); n > 0 {
		return m.samples[n-1].at
	}
	return time.Time{}
}

// sampleOf reads the counters of t and of its connections. The library
// reads them under separate locks, and a chunk that lands between the
// torrent's read and its connections' is in one and not the other (one
// 16 KiB chunk is 3 KB/s over the window: a row and its one peer then
// disagreed). So the torrent's are read again after the connections' and
// the sample taken again when they moved; a few tries find a quiet moment
// at any real speed, and the last try is kept if none does.
func sampleOf(t *torrent.Torrent, now time.Time) rateSample {
	var s rateSample
	for range 4 {
		s = sampleOnce(t, now)
		if st := t.Stats(); st.BytesReadUsefulData.Int64() == s.down && st.BytesWrittenData.Int64() == s.up {
			break
		}
	}
	return s
}

// sampleOnce reads the torrent's counters, then its connections'.
func sampleOnce(t *torrent.Torrent, now time.Time) rateSample {
	st := t.Stats()
	s := rateSample{
		at:        now,
		down:      st.BytesReadUsefulData.Int64(),
		peersDown: st.PeerConns.BytesReadUsefulData.Int64(),
		up:        st.BytesWrittenData.Int64(),
	}
	pcs, wss := t.PeerConns(), t.WebseedPeerConns()
	s.conns = make(map[*torrent.Peer]connCount, len(pcs)+len(wss))
	for _, pc := range pcs {
		ps := pc.Stats()
		s.conns[&pc.Peer] = connCount{ps.BytesReadUsefulData.Int64(), ps.BytesWrittenData.Int64()}
	}
	for _, p := range wss {
		ps := p.Stats()
		s.conns[p] = connCount{ps.BytesReadUsefulData.Int64(), ps.BytesWrittenData.Int64()}
	}
	return s
}

// between is the speeds from sample a to sample b. A connection missing
// from a came since: all its bytes are within the window, as they are in
// the torrent's counters. One sample alone has no speed.
func between(a, b rateSample) rates {
	r := rates{conns: make(map[*torrent.Peer]connRate, len(b.conns))}
	dt := b.at.Sub(a.at).Seconds()
	if dt <= 0 {
		for k := range b.conns {
			r.conns[k] = connRate{}
		}
		return r
	}
	per := func(x, y int64) float64 { return max(0, float64(y-x)/dt) }
	r.down, r.peersDown, r.up = per(a.down, b.down), per(a.peersDown, b.peersDown), per(a.up, b.up)
	for k, c := range b.conns {
		old := a.conns[k]
		r.conns[k] = connRate{down: per(old.read, c.read), up: per(old.written, c.written)}
	}
	return r
}
