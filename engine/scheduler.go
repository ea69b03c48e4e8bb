package engine

import (
	"context"
	"math"
	"slices"
	"sync/atomic"
	"time"
)

// Tuning of how work is handed out. A segment is sized to keep its mirror
// busy for at most chunkTime, and to half the mirror's fair share of what
// is left (fair by speed), so segments shrink geometrically toward the end
// of the file: every mirror finishes at about the same time with few
// steals, and the whole-file hash, which must read the file in order, is
// never left with more than the last small round of segments to catch up
// on when the last piece lands.
const (
	chunkTime  = 4 * time.Second
	firstChunk = 8 << 20 // bytes, before a mirror's speed is known
	minChunk   = 1 << 20 // bytes, at least one piece
	// stallGrace is how long a connection near the end may send nothing
	// before a faster idle mirror takes its piece over.
	stallGrace = time.Second
)

// Why the dispatcher cut a connection.
const (
	cutStalled = "stalled"
	cutSlow    = "slower than an idle mirror"
	cutStop    = "stopping"
)

// segment is one connection's work: pieces [cur, end) from one mirror,
// fetched in order with one range request, or, from a mirror that serves
// no ranges, with one stream from the start of the file that skips what
// lies before cur and may claim more free pieces after end (see extend).
type segment struct {
	m      *mirror
	ctx    context.Context
	cancel context.CancelFunc
	// cur is the piece being written and end is one past the last piece
	// the connection may write. Both are guarded by download.mu; end only
	// shrinks, when an idle mirror steals the far part of the segment,
	// and never below cur+1, so two connections never write one piece.
	cur, end int
	cut      string // why the dispatcher cut it; guarded by download.mu
	started  time.Time
	probe    bool // it only asks the mirror about the file

	partial atomic.Int64 // bytes of piece cur written so far
	skip    atomic.Int64 // bytes a stream must still read and discard before piece cur
	got     atomic.Int64 // bytes received
	last    atomic.Int64 // time of the last byte received, unix nanoseconds
	trimmed atomic.Bool  // cut by trim (budget.go): its token settles the cut

	err error // how it ended; set by its goroutine before it reports
}

// free reports whether piece i waits for a mirror and m may serve it: m
// never gets a piece it sent bad data for.
func (d *download) free(i int, m *mirror) bool {
	switch d.pieces[i] {
	case PieceMissing, PieceBad:
	default:
		return false
	}
	return !slices.Contains(d.bad[i], int16(m.idx))
}

// live counts the mirrors not dropped.
func (d *download) live() int {
	n := 0
	for _, m := range d.mirrors {
		if m.state != MirrorDropped && m.src != nil {
			n++
		}
	}
	return n
}

// pick finds work for the idle mirror m: the start of the first run of
// free pieces, or else the far part of the slowest segment. It may instead
// cut a stalled or very slow connection, whose piece then comes free when
// its goroutine ends. It reports false when there is nothing for m now.
func (d *download) pick(m *mirror, now time.Time) (start, end int, ok bool) {
	if d.needsProbe(m) {
		// Its first connection only asks about the file: whether it
		// serves ranges decides where its work should be.
		m.probing = true
		return 0, 0, true
	}
	if d.awaitProbes(m, now) {
		return 0, 0, false
	}
	n := len(d.pieces)
	if m.noRanges {
		return d.pickStream(m, now)
	}
	if d.req.InOrder {
		return d.pickInOrder(m, now)
	}
	if start, end, ok := d.pickPlaced(m, now); ok {
		return start, end, true
	}
	first, free := -1, 0
	var runEnd int
	for i := d.prefix; i < n; i++ {
		if !d.free(i, m) {
			continue
		}
		free++
		if first < 0 {
			first = i
			runEnd = i + 1
			// A partial piece ends the run: it is best the start
			// of another, asked from its first missing byte.
			for runEnd < n && d.free(runEnd, m) && d.partial[runEnd] == 0 {
				runEnd++
			}
		}
	}
	if first >= 0 {
		k := d.chunk(m, free, now)
		return first, min(runEnd, first+k), true
	}
	return d.steal(m, now)
}

// chunk is how many pieces to give m from a run of free pieces, when free
// pieces are left in all.
func (d *download) chunk(m *mirror, free int, now time.Time) int {
	length := float64(d.plan.Length)
	var sum float64
	known, n := true, 0
	for _, o := range d.mirrors {
		if o.state == MirrorDropped || o.src == nil || (o.conns == 0 && o.retryAt.After(now)) {
			continue
		}
		n += o.limit
		if o.rate == 0 {
			known = false
		}
		sum += o.rate
	}
	if lim := d.file.MaxConnections; lim > 0 && lim < n {
		// Fewer connections than the mirrors could take run at once: the
		// free pieces are shared among those, and which mirrors get them
		// is not known ahead. With one, nothing runs beside m.
		n = lim
		known = false
	}
	share := float64(free) / float64(max(n, 1))
	if known && m.rate > 0 && sum > 0 {
		share = float64(free) * m.rate / sum / float64(m.limit)
	}
	target := firstChunk / length
	if m.rate > 0 {
		target = m.rate * chunkTime.Seconds() / length
	}
	if n > 1 {
		share /= 2 // leave the rest for the others to share as they finish
	}
	k := int(math.Ceil(min(share, target)))
	return max(k, int(math.Ceil(minChunk/length)), 1)
}

// segRate is the speed of one segment's connection in bytes per second, and
// whether it is known.
func (d *download) segRate(s *segment, now time.Time) (float64, bool) {
	if now.Sub(time.Unix(0, s.last.Load())) > stallGrace {
		return 0, true // stalled
	}
	if s.m.rate > 0 {
		return s.m.rate / float64(max(s.m.conns, 1)), true
	}
	if el := now.Sub(s.started).Seconds(); el > 0.5 {
		return float64(s.got.Load()) / el, true
	}
	return 0, false
}

// left is the bytes segment s still has to fetch.
func (d *download) left(s *segment) int64 {
	off, _ := d.plan.Bounds(s.cur)
	endOff, n := d.plan.Bounds(s.end - 1)
	return endOff + n - off - s.partial.Load() + s.skip.Load()
}

// extend gives the stream segment s, which has written every piece it
// held, the free pieces right after them, and reports whether there were
// any. Its stream passes those pieces anyway, so fetching them costs no
// new request. When the next piece is another's, the stream ends, unless
// no mirror that serves ranges is left to fetch what lies beyond: reading
// the other's pieces only to throw them away wastes the server's bytes.
// Called with d.mu held.
func (d *download) extend(s *segment) bool {
	m, n := s.m, len(d.pieces)
	if m.state == MirrorDropped || s.cut != "" {
		return false
	}
	ranged := d.rangedReady(time.Now())
	for i := s.end; i < n; i++ {
		if !d.free(i, m) {
			if ranged {
				return false
			}
			continue
		}
		j := i + 1
		for j < n && d.free(j, m) && (!ranged || j-i < d.chunk(m, n-i, time.Now())) {
			j++
		}
		for k := i; k < j; k++ {
			d.pieces[k] = PieceActive
			d.filler[k] = int16(m.idx)
		}
		s.cur, s.end = i, j
		return true
	}
	return false
}

// steal gives the idle mirror m the far part of the segment expected to
// finish last, split by speed so that both end together. When that
// segment has nothing left but the piece in progress and its connection is
// stalled or far slower than m, the connection is cut instead.
func (d *download) steal(m *mirror, now time.Time) (start, end int, ok bool) {
	var victim *segment
	var vEta float64
	for _, s := range d.segs {
		if s.cut != "" || s.end <= s.cur {
			continue // cut, or only asking about the file
		}
		eta := math.Inf(1)
		if v, known := d.segRate(s, now); known && v > 0 {
			eta = float64(d.left(s)) / v
		} else if !known {
			eta = math.MaxFloat64 / 2 // unknown: ranks below stalled ones
		}
		if victim == nil || eta > vEta {
			victim, vEta = s, eta
		}
	}
	if victim == nil {
		return 0, 0, false
	}
	s := victim
	vo, known := d.segRate(s, now)
	vs := m.rate
	if s.m == m {
		// Another connection to the same mirror: it shares the mirror's
		// speed, so the split is even and the gain cannot be told ahead.
		vs = vo
	}
	length := float64(d.plan.Length)
	rem := s.end - s.cur - 1 // whole pieces after the one in progress
	if rem < 1 {
		if s.m != m {
			d.maybeCut(s, m, vo, known, now)
		}
		return 0, 0, false
	}
	frac := 0.5
	switch {
	case known && vo == 0:
		frac = 1
	case known && vs > 0:
		frac = vs / (vs + vo)
	}
	k := min(max(int(math.Round(float64(rem)*frac)), 1), rem)
	if known && vo > 0 && vs > 0 {
		left := float64(d.left(s))
		lat := m.latency()
		after := max((left-float64(k)*length)/vo, float64(k)*length/vs+lat)
		if after >= vEta-lat {
			return 0, 0, false
		}
	}
	s.end -= k
	return s.end, s.end + k, true
}

// maybeCut cuts s, which holds only the piece in progress, when m would
// fetch that piece anew much sooner than s will finish it.
func (d *download) maybeCut(s *segment, m *mirror, vo float64, known bool, now time.Time) {
	if !known {
		return
	}
	_, n := d.plan.Bounds(s.cur)
	rest := float64(n - s.partial.Load())
	switch {
	case vo == 0:
		if now.Sub(time.Unix(0, s.last.Load())) < stallGrace {
			return
		}
	case m.rate > 0:
		// Worth it when m fetches the whole piece anew in well under the
		// time s needs for the rest of it.
		if rest/vo < 2*float64(n)/m.rate+m.latency() {
			return
		}
	default:
		return
	}
	s.cut = cutSlow
	if vo == 0 {
		s.cut = cutStalled
	}
	s.cancel()
}
