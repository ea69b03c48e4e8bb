package engine

import (
	"time"

	"braid/engine/transport"
)

// Where a mirror's work goes in the file, when the kind of mirror makes it
// matter. A mirror that serves no ranges streams from the start of the
// file, so it gets the free pieces at the start and the others keep away
// from them: those that take ranges cheaply (HTTP) fill from the end, and
// those for which a new range aborts a transfer (FTP, a
// transport.Continuer) split the largest gap and go on from where their
// last range ended, so that one transfer serves many ranges. Without
// such mirrors, pieces are handed out from the start (pick).

// probeWait bounds how long mirrors wait for the others' first answers
// before they take work: the placement needs to know which serve ranges.
const probeWait = 2 * time.Second

// streamSkip is the most bytes a new stream from a range-less mirror may
// read and throw away to reach its first free piece while mirrors that
// serve ranges could fetch that piece directly.
const streamSkip = 1 << 20

// needsProbe reports whether m should first be asked about the file.
// Called with d.mu held.
func (d *download) needsProbe(m *mirror) bool {
	_, ok := m.src.(transport.Stater)
	return ok && !m.probed && !m.probing
}

// awaitProbes reports whether m, which has just answered its first
// question, should wait for the other mirrors' first answers before it
// takes work: then work goes out in the mirrors' order, knowing which
// serve ranges. Called with d.mu held.
func (d *download) awaitProbes(m *mirror, now time.Time) bool {
	if d.file.MaxConnections > 0 || now.Sub(m.probedAt) > probeWait {
		return false
	}
	for _, o := range d.mirrors {
		if o == m || o.state == MirrorDropped || o.src == nil || o.probed {
			continue
		}
		if _, ok := o.src.(transport.Stater); ok && (o.probing || o.usable(now)) {
			return true
		}
	}
	return false
}

// rangedReady reports whether a mirror that serves ranges is in use and
// not backing off: one that can fetch the pieces a stream would have to
// pass others' work to reach. Called with d.mu held.
func (d *download) rangedReady(now time.Time) bool {
	for _, m := range d.mirrors {
		if m.state != MirrorDropped && m.src != nil && !m.noRanges && !m.retryAt.After(now) {
			return true
		}
	}
	return false
}

// streamLive reports whether a range-less mirror is still in use. Called
// with d.mu held.
func (d *download) streamLive() bool {
	for _, m := range d.mirrors {
		if m.state != MirrorDropped && m.src != nil && m.noRanges && !m.banned {
			return true
		}
	}
	return false
}

// pickStream finds work for the range-less mirror m: free pieces from the
// first one, when its stream need not pass much of others' work to reach
// them. It steals nothing: its stream would re-read the file up to the
// stolen pieces. Called with d.mu held.
func (d *download) pickStream(m *mirror, now time.Time) (start, end int, ok bool) {
	n := len(d.pieces)
	ranged := d.rangedReady(now)
	free := 0
	first, runEnd := -1, 0
	for i := d.prefix; i < n; i++ {
		if !d.free(i, m) {
			continue
		}
		free++
		if first < 0 {
			first, runEnd = i, i+1
			for runEnd < n && d.free(runEnd, m) {
				runEnd++
			}
		}
	}
	if first < 0 {
		return 0, 0, false
	}
	if !ranged {
		return first, runEnd, true
	}
	if off, _ := d.plan.Bounds(first); off > streamSkip {
		return 0, 0, false
	}
	return first, min(runEnd, first+d.chunk(m, free, now)), true
}

// pickPlaced finds free work for the ranged mirror m when placement
// matters (see above), and reports false when it does not or no piece is
// free. Called with d.mu held.
func (d *download) pickPlaced(m *mirror, now time.Time) (start, end int, ok bool) {
	_, cont := m.src.(transport.Continuer)
	stream := d.streamLive()
	if !cont && !stream {
		return 0, 0, false
	}
	n := len(d.pieces)
	type run struct{ a, b int }
	var runs []run
	free := 0
	for i := d.prefix; i < n; {
		if !d.free(i, m) {
			i++
			continue
		}
		j := i + 1
		for j < n && d.free(j, m) {
			j++
		}
		runs = append(runs, run{i, j})
		free += j - i
		i = j
	}
	if len(runs) == 0 {
		return 0, 0, false
	}
	k := d.chunk(m, free, now)
	if cont {
		// A Continuer takes the whole run: its transfer goes on to the
		// run's end, and mirrors that run out of work steal the far part
		// of it, which does not cut the transfer short.
		for _, r := range runs {
			if m.cursor >= r.a && m.cursor < r.b {
				return m.cursor, r.b, true
			}
		}
		big := runs[0]
		for _, r := range runs[1:] {
			if r.b-r.a > big.b-big.a {
				big = r
			}
		}
		a := big.a
		if big.b-big.a >= 2*k && d.live() > 1 {
			// Others fill the gap from below: start in its middle, and
			// go on up from there.
			a += (big.b - big.a) / 2
		}
		return a, big.b, true
	}
	last := runs[len(runs)-1]
	return max(last.a, last.b-k), last.b, true
}
