package torrent

import (
	"time"

	"github.com/anacrolix/torrent"
)

// anacrolix v1.59.1 can leave a connected peer idle after a web seed's
// pieces fail their hash: the pieces are wanted again, the peer has them
// and does not choke us, yet it is never asked for them (seen as "reqq:
// 0+0" with the pieces pending and not partial in Client.WriteStatus).
// They wait until the web seed's one-minute penalty (webseed-peer.go:268)
// ends and it fetches them, bad, once more: TestCorruptWebSeed took 60 s
// or 120 s in about one run of twenty instead of 0.2 s. Raising a piece's
// priority does not wake the peer (updatePeerRequestsForPiece skips it);
// disallowing and allowing data download does, as it tells every peer to
// plan its requests again (torrent.go:3011). Once was not always enough
// (1 run in 320 still waited the minute, after a request the peer
// rejected), so it is done again while the stall lasts, each time after
// twice the wait before, up to replanMax.
//
// It is done only in a job where a piece has failed its hash check, and
// only when nothing useful has arrived for the wait while pieces are still
// missing: it cancels the requests in flight, and there are none worth
// keeping when nothing has arrived for that long.

const (
	replanAfter = 3 * time.Second  // the first wait of a stall
	replanMax   = 48 * time.Second // the longest wait between two replans
)

type replanner struct {
	t      *torrent.Torrent
	ts     *torrentStorage
	useful int64         // useful bytes received at the last look
	since  time.Time     // when useful last changed, or the last replan
	wait   time.Duration // how long a stall lasts before the next replan
}

func newReplanner(t *torrent.Torrent, ts *torrentStorage) *replanner {
	return &replanner{t: t, ts: ts, wait: replanAfter}
}

// check is called on the job's tick while it downloads. Until a piece
// fails it costs a lock: Stats walks every connection, five times a
// second, and is read only from then on.
func (r *replanner) check(now time.Time) {
	if r.ts.failedChecks() == 0 {
		return
	}
	stats := r.t.Stats()
	useful := stats.BytesReadUsefulData.Int64()
	if useful != r.useful || r.since.IsZero() {
		r.useful, r.since, r.wait = useful, now, replanAfter
		return
	}
	if now.Sub(r.since) < r.wait || r.t.BytesMissing() == 0 {
		return
	}
	r.since, r.wait = now, min(2*r.wait, replanMax)
	r.t.DisallowDataDownload()
	r.t.AllowDataDownload()
}
