package engine

import (
	"math"
	"time"
)

// In order. A download in order (Request.InOrder) is for a file someone
// wants to use while it arrives: a video to watch, an image to read from
// the start. Its pieces are handed out from the front only, in small
// segments, so the connections to all mirrors fill the next pieces side
// by side and the done prefix, which a player reads, grows at about the
// speed of the whole download. The normal schedule hands out larger
// segments, and mirrors that stream or continue a transfer fill from the
// end or the middle of the file (placement.go): faster, when it matters,
// but the prefix then grows only as the first segment does.
//
// A segment keeps its mirror busy for orderTime, or longer where a new
// request is dear (orderRequests), so that asking again costs a few
// percent of the throughput. Connections may run ahead of the prefix by
// orderLead of the download's speed; a mirror that finds nothing free
// closer than that takes over the far part of the slowest segment, or
// waits, rather than run further ahead while the front is slow in coming.
const (
	orderTime     = 500 * time.Millisecond
	orderRequests = 20 // a segment lasts at least this many times a request's latency
	orderLead     = 4 * time.Second
)

// pickInOrder finds work for the idle mirror m of a download in order:
// the start of the first run of free pieces, a small segment of it. It
// reports false when there is nothing for m now. Called with d.mu held.
func (d *download) pickInOrder(m *mirror, now time.Time) (start, end int, ok bool) {
	n := len(d.pieces)
	first, runEnd, free := -1, 0, 0
	for i := d.prefix; i < n; i++ {
		if !d.free(i, m) {
			continue
		}
		free++
		if first < 0 {
			first, runEnd = i, i+1
			// A partial piece ends the run, as in pick.
			for runEnd < n && d.free(runEnd, m) && d.partial[runEnd] == 0 {
				runEnd++
			}
		}
	}
	if first < 0 {
		return d.steal(m, now)
	}
	if first-d.prefix > d.orderLead(now) {
		// The front is slow in coming: help there, or wait for it.
		return d.steal(m, now)
	}
	// Toward the end of the file the normal schedule's shrinking share
	// (chunk) is the smaller: every mirror then finishes at about the
	// same time, in order or not.
	k := min(d.orderChunk(m), d.chunk(m, free, now))
	return first, min(runEnd, first+k), true
}

// orderChunk is how many pieces a segment in order gives m: what it
// fetches in orderTime (longer for a mirror whose requests take long to
// answer), and at least minChunk and one piece.
func (d *download) orderChunk(m *mirror) int {
	length := float64(d.plan.Length)
	bytes := float64(minChunk)
	if m.rate > 0 {
		t := max(orderTime.Seconds(), orderRequests*m.latency())
		bytes = max(bytes, min(m.rate*t, m.rate*chunkTime.Seconds()))
	}
	return max(int(math.Ceil(bytes/length)), 1)
}

// orderLead is how many pieces past the done prefix the first free piece
// may lie for a mirror to take it: orderLead of the download's speed, and
// at least two segments for every connection that may run. Called with
// d.mu held.
func (d *download) orderLead(now time.Time) int {
	length := float64(d.plan.Length)
	conns := 0
	var rate float64
	for _, o := range d.mirrors {
		if o.state == MirrorDropped || o.src == nil || (o.conns == 0 && o.retryAt.After(now)) {
			continue
		}
		conns += o.limit
		rate += o.rate
	}
	if lim := d.file.MaxConnections; lim > 0 && lim < conns {
		conns = lim
	}
	least := 2 * max(conns, 1) * max(int(math.Ceil(minChunk/length)), 1)
	return max(int(math.Ceil(rate*orderLead.Seconds()/length)), least)
}
