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
// of those pieces and sent nothing in that time are closed. A direct peer
// is dialed again by keepDirectPeers, others come back through the
// trackers and the DHT; a fresh connection starts with no request held.

// idleDrop is how long a torrent may receive nothing before its idle
// connections are closed.
const idleDrop = 20 * time.Second

// idleLookEvery is how often the idle watch reads the torrent's counts:
// Stats walks every connection.
const idleLookEvery = time.Second

type idleWatch struct {
	t      *torrent.Torrent
	limits []*engine.Limiter // a rate this low may leave a peer quiet for idleDrop
	look   time.Time         // the last look
	useful int64             // the torrent's useful bytes at the last change
	since  time.Time         // when useful last changed, or the last drop
	chunks map[*torrent.PeerConn]int64
}

func newIdleWatch(t *torrent.Torrent, limits ...*engine.Limiter) *idleWatch {
	return &idleWatch{t: t, limits: limits, chunks: map[*torrent.PeerConn]int64{}}
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
	w.look = now
	stats := w.t.Stats()
	useful := stats.BytesReadUsefulData.Int64()
	if useful != w.useful || w.since.IsZero() || w.limited() || w.t.BytesMissing() == 0 {
		w.useful, w.since = useful, now
		w.remember()
		return
	}
	if now.Sub(w.since) < idleDrop {
		return
	}
	w.since = now
	for _, pc := range w.t.PeerConns() {
		read, seen := w.chunks[pc]
		st := pc.Stats()
		if !seen || st.ChunksRead.Int64() != read || !w.holdsWanted(pc) {
			continue // new since the last look, or gave something, or has nothing we want
		}
		_ = pc.Close() // it always returns nil
	}
	w.remember()
}

// remember notes each connection's chunks read so far.
func (w *idleWatch) remember() {
	clear(w.chunks)
	for _, pc := range w.t.PeerConns() {
		st := pc.Stats()
		w.chunks[pc] = st.ChunksRead.Int64()
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
