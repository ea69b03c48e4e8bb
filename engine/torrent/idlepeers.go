package torrent

import (
	"time"

	"github.com/anacrolix/torrent"
	"github.com/anacrolix/torrent/types"

	"braid/engine"
)

// anacrolix v1.59.1 has no request timeout. A peer that takes a request
// and never serves it keeps it for the connection's life, and the
// library asks nobody else for that chunk: a torrent whose one peer does
// this waits for ever. It was seen with an anacrolix v1.59.1 seeder that
// sent 18 chunks, then held the 19th (Client.WriteStatus: "reqq: 1+0",
// the last message 60 s old). libtorrent gives a peer 20 s to serve a
// piece (piece_timeout) before it snubs it.
//
// So when a torrent has received nothing useful for idleDrop while
// pieces it wants are missing, its connections to peers that hold some
// of those pieces and sent not a byte in that time are closed. A peer
// that sends, however slowly (a chunk may take longer than idleDrop at a
// few hundred bytes a second), is kept. A direct peer
// is dialed again by keepDirectPeers, others come back through the
// trackers and the DHT; a fresh connection starts with no request held.

// idleDrop is how long a torrent may receive nothing before its idle
// connections are closed.
const idleDrop = 20 * time.Second

// idleLookEvery is how often the idle watch reads the torrent's counts:
// Stats walks every connection.
const idleLookEvery = time.Second

// missedLook is how late a look may come before the watch takes it that
// the process itself stood still.
const missedLook = 3 * idleLookEvery

type idleWatch struct {
	t      *torrent.Torrent
	after  time.Duration     // idleDrop, or a test's
	limits []*engine.Limiter // a rate this low may leave a peer quiet for idleDrop
	look   time.Time         // the last look
	useful int64             // the torrent's useful bytes at the last change
	since  time.Time         // when useful last changed, or the last drop
	conns  map[*torrent.PeerConn]heard
	closed func() // told of each connection closed; nil: none
}

// heard is what a connection had sent at a look, and since when.
type heard struct {
	read  int64     // bytes read from it
	since time.Time // when read last changed, or the connection was first seen
}

// newIdleWatch watches t; after is how long a stall lasts before idle
// connections close (0: idleDrop).
func newIdleWatch(t *torrent.Torrent, after time.Duration, limits ...*engine.Limiter) *idleWatch {
	if after <= 0 {
		after = idleDrop
	}
	return &idleWatch{t: t, after: after, limits: limits, conns: map[*torrent.PeerConn]heard{}}
}

// slowLimit is the download limit under which a peer may rightly send
// nothing for idleDrop: a chunk (16 KiB) takes seconds.
const slowLimit = 4 << 10

// check is called on the job's tick while it downloads; it closes idle
// connections when the torrent has stalled.
func (w *idleWatch) check(now time.Time) {
	if now.Sub(w.look) < idleLookEvery {
		return
	}
	// A look this late means this process did not run for a while (a
	// machine under load, a laptop waking): the peers' silence then is
	// ours, so the wait starts again from now.
	missed := !w.look.IsZero() && now.Sub(w.look) > missedLook
	w.look = now
	conns := w.t.PeerConns()
	if missed {
		clear(w.conns)
		w.since = time.Time{}
	}
	w.listen(conns, now)
	stats := w.t.Stats()
	useful := stats.BytesReadUsefulData.Int64()
	if useful != w.useful || w.since.IsZero() || w.limited() || w.t.BytesMissing() == 0 {
		w.useful, w.since = useful, now
		return
	}
	if now.Sub(w.since) < w.after {
		return
	}
	w.since = now
	for _, pc := range conns {
		if now.Sub(w.conns[pc].since) < w.after || !w.holdsWanted(pc) {
			continue // it sent something lately, or has nothing we want
		}
		_ = pc.Close() // it always returns nil
		delete(w.conns, pc)
		if w.closed != nil {
			w.closed()
		}
	}
}

// listen notes what each connection has sent, and forgets those gone.
func (w *idleWatch) listen(conns []*torrent.PeerConn, now time.Time) {
	live := make(map[*torrent.PeerConn]bool, len(conns))
	for _, pc := range conns {
		live[pc] = true
		st := pc.Stats()
		read := st.BytesRead.Int64()
		if h, ok := w.conns[pc]; !ok || h.read != read {
			w.conns[pc] = heard{read: read, since: now}
		}
	}
	for pc := range w.conns {
		if !live[pc] {
			delete(w.conns, pc)
		}
	}
}

// limited reports whether a download limit this low is in force that a
// quiet peer may only be waiting for it.
func (w *idleWatch) limited() bool {
	for _, l := range w.limits {
		if r := l.Rate(); r > 0 && r < slowLimit {
			return true
		}
	}
	return false
}

// holdsWanted reports whether pc's peer has a piece the torrent wants
// and lacks.
func (w *idleWatch) holdsWanted(pc *torrent.PeerConn) bool {
	found, n := false, w.t.NumPieces()
	pc.PeerPieces().Iterate(func(i uint32) bool {
		if int(i) >= n {
			return false
		}
		ps := w.t.PieceState(int(i))
		found = !ps.Complete && ps.Priority != types.PiecePriorityNone
		return !found
	})
	return found
}
