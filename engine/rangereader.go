package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"braid/engine/piece"
	"braid/engine/transport"
)

// Ranges reads byte ranges of one file from all its mirrors at once, for a
// reader that wants a few parts of a large file and not the file: the
// directory and one member of a ZIP archive. It is a transport.Source, so
// what reads one mirror (ziprange) reads every mirror through it.
//
// A range is cut into the file's pieces. Where the metalink has piece
// hashes, every piece that covers the range is fetched whole and checked
// against its hash before a byte of it is handed on, and a mirror whose
// piece fails gets a strike and the piece comes from another mirror, as in
// a download (three strikes drop it). Without piece hashes only the bytes
// asked for are fetched, in piece-sized parts. Runs of pieces are handed
// to the mirrors side by side, at most a window ahead of the reader, and
// are given to the reader in order as they arrive: a deflated member is
// inflated while the later pieces are still on their way. Verified pieces
// are kept for a while, so that reading the directory after the end
// record, or a member's bytes after its local header, does not fetch a
// piece twice.
//
// The mirrors are the download's (proxies, logins, cookies, headers, the
// If-Match of pref mirrors apply), and their connections count against the
// Client's connection caps and rate limit. A mirror that sends only whole
// files is not used; when no mirror can send ranges a read fails with
// transport.ErrNoRanges.
//
// Nothing is written to disk: Ranges holds the pieces it is reading in
// memory, at most rangeWindow bytes ahead of the reader.
type Ranges struct {
	d *download

	// Guarded by d.mu.
	cache    map[int][]byte // verified pieces, for reads that come back to them
	order    []int          // cache's pieces, oldest first
	served   []int64        // pieces (or parts) each mirror delivered good
	checked  int            // pieces checked against their hash
	reads    int            // ReadRange calls running
	closed   bool
	waitFrom time.Time // when every mirror began backing off, since the last good piece; zero when not
}

// Tuning of Ranges.
const (
	// rangeWindow bounds the bytes fetched ahead of the reader.
	rangeWindow = 64 << 20
	// rangeRun bounds the bytes one request asks a mirror for, so that a
	// long member is spread over the mirrors in turns.
	rangeRun = 8 << 20
	// rangeCache bounds the verified pieces kept after they are read.
	rangeCache = 16 << 20
)

// OpenRanges makes a Ranges over req's file and its mirrors. The file's
// size comes from the metalink, or else from the first mirror that tells
// it. Only req's File, Net, OriginETag, Referer, Locations, RetryFor and
// Limiter are used; nothing is written to Dir.
func (c *Client) OpenRanges(ctx context.Context, req *Request) (*Ranges, error) {
	c.init()
	d := newDownload(c, req)
	d.perMirror = c.perMirror()
	size := d.size
	if size < 0 {
		if size = d.statSize(ctx); size < 0 {
			d.closeMirrors()
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			return nil, ErrUnknownSize
		}
	}
	d.initPieces(size)
	d.mu.Lock()
	live := d.live()
	d.mu.Unlock()
	if live == 0 {
		d.closeMirrors()
		return nil, noMirrorsError(d.lost)
	}
	return &Ranges{d: d, cache: map[int][]byte{}, served: make([]int64, len(d.mirrors))}, nil
}

// Size is the file's length in bytes.
func (r *Ranges) Size() int64 { return r.d.size }

// Mirror names the file for messages: its first mirror, and how many
// others there are.
func (r *Ranges) Mirror() string {
	switch n := len(r.d.mirrors); n {
	case 0:
		return r.d.file.Name
	case 1:
		return r.d.mirrors[0].name
	default:
		return fmt.Sprintf("%s and %d other mirrors", r.d.mirrors[0].name, n-1)
	}
}

// Close ends the mirrors' own connections (FTP control connections). Reads
// still running fail.
func (r *Ranges) Close() error {
	r.d.mu.Lock()
	r.closed = true
	r.d.mu.Unlock()
	r.d.closeMirrors()
	return nil
}

// RangeMirror is what one mirror did for a Ranges.
type RangeMirror struct {
	URL     string // without credentials
	Bytes   int64  // body bytes received from it
	Pieces  int64  // pieces (parts, without piece hashes) it delivered good
	Strikes int    // pieces it sent that failed their hash
	Dropped string // why it was dropped; "" when it was not
}

// RangeStats is what a Ranges has fetched so far.
type RangeStats struct {
	// PieceType is the hash the pieces were checked against ("sha-256"),
	// "" when the metalink has no piece hashes.
	PieceType   string
	PieceLength int64
	// Checked is how many pieces matched their hash.
	Checked int
	Mirrors []RangeMirror
}

// Bytes is the body bytes received from all mirrors.
func (s RangeStats) Bytes() int64 {
	var n int64
	for _, m := range s.Mirrors {
		n += m.Bytes
	}
	return n
}

// Stats reports what has been fetched so far.
func (r *Ranges) Stats() RangeStats {
	d := r.d
	d.mu.Lock()
	defer d.mu.Unlock()
	s := RangeStats{PieceType: d.plan.Type, PieceLength: d.plan.Length, Checked: r.checked}
	for i, m := range d.mirrors {
		rm := RangeMirror{URL: m.name, Bytes: m.bytes.Load(), Pieces: r.served[i], Strikes: m.strikes}
		if m.state == MirrorDropped {
			rm.Dropped = m.reason
		}
		s.Mirrors = append(s.Mirrors, rm)
	}
	return s
}

// unit is one part of a range read: a whole piece when pieces are
// checked, else the part of a piece inside the range.
type unit struct {
	piece  int
	off, n int64
	state  PieceState // PieceMissing, PieceActive or PieceDone
	data   []byte     // when done and not yet read
	bad    []int      // mirrors that sent bad data for it
}

// rangeRead is one ReadRange in progress. Its fields are guarded by
// download.mu unless said otherwise.
type rangeRead struct {
	r      *Ranges
	ctx    context.Context
	cancel context.CancelFunc
	units  []unit
	next   int   // the unit the reader is in
	pos    int64 // offset of the reader's next byte
	end    int64
	err    error         // why the read failed; the reader sees it
	change chan struct{} // closed and replaced at every change
	conns  sync.WaitGroup
	live   []*rangeConn // connections running
	done   chan struct{}
}

// rangeConn is one request to one mirror for units [first, end).
type rangeConn struct {
	m          *mirror
	ctx        context.Context
	cancel     context.CancelFunc
	first, end int
	cut        string       // why the coordinator cut it; guarded by download.mu
	got        atomic.Int64 // bytes received
	last       atomic.Int64 // time of the last byte, unix nanoseconds
}

// ReadRange returns the bytes [off, off+n) of the file, fetched from the
// mirrors side by side and, where the file has piece hashes, checked
// piece by piece. It waits for the first piece, so that a range no mirror
// can serve fails here, with transport.ErrNoRanges when no mirror sends
// ranges. Close the reader to stop fetching.
func (r *Ranges) ReadRange(ctx context.Context, off, n int64) (io.ReadCloser, error) {
	d := r.d
	if off < 0 || n < 0 || off > d.size || n > d.size-off {
		return nil, fmt.Errorf("bytes %d-%d lie outside the %d-byte file", off, off+n-1, d.size)
	}
	ctx, cancel := context.WithCancel(ctx)
	rr := &rangeRead{r: r, ctx: ctx, cancel: cancel, pos: off, end: off + n, change: make(chan struct{}), done: make(chan struct{})}
	checked := d.plan.Verifiable()
	if n > 0 {
		for i := d.plan.Index(off); i <= d.plan.Index(off+n-1); i++ {
			po, pn := d.plan.Bounds(i)
			u := unit{piece: i, off: po, n: pn}
			if !checked { // only the bytes asked for
				u.off = max(po, off)
				u.n = min(po+pn, off+n) - u.off
			}
			rr.units = append(rr.units, u)
		}
	}
	d.mu.Lock()
	if r.closed {
		d.mu.Unlock()
		cancel()
		return nil, errors.New("the mirrors are closed")
	}
	r.reads++
	for i := range rr.units {
		if b, ok := r.cache[rr.units[i].piece]; ok && checked {
			rr.units[i].state, rr.units[i].data = PieceDone, b
		}
	}
	d.mu.Unlock()
	go rr.coordinate()
	// Wait for the first unit, or the reason there is none.
	for {
		d.mu.Lock()
		ready := len(rr.units) == 0 || rr.units[0].state == PieceDone
		err, ch := rr.err, rr.change
		d.mu.Unlock()
		if ready {
			return rr, nil
		}
		if err != nil {
			rr.Close()
			return nil, err
		}
		<-ch
	}
}

// changed wakes whoever waits on the read. Called with download.mu held.
func (rr *rangeRead) changed() {
	close(rr.change)
	rr.change = make(chan struct{})
}

// fail ends the read with err, unless it has failed already. Called with
// download.mu held.
func (rr *rangeRead) fail(err error) {
	if rr.err == nil {
		rr.err = err
		rr.changed()
	}
}

func (rr *rangeRead) Read(p []byte) (int, error) {
	d := rr.r.d
	for {
		if rr.pos >= rr.end {
			return 0, io.EOF
		}
		d.mu.Lock()
		u := &rr.units[rr.next]
		if u.state == PieceDone {
			from := rr.pos - u.off
			k := copy(p, u.data[from:min(int64(len(u.data)), rr.end-u.off)])
			rr.pos += int64(k)
			if rr.pos >= u.off+u.n || rr.pos >= rr.end {
				if rr.next+1 < len(rr.units) {
					rr.next++
				}
				u.data = nil // free it: the window moves on
				rr.changed()
			}
			d.mu.Unlock()
			return k, nil
		}
		err, ch := rr.err, rr.change
		d.mu.Unlock()
		if err != nil {
			return 0, err
		}
		select {
		case <-ch:
		case <-rr.ctx.Done():
			return 0, rr.ctx.Err()
		}
	}
}

// Close stops the read's connections and waits for them.
func (rr *rangeRead) Close() error {
	rr.cancel()
	<-rr.done
	return nil
}

// coordinate hands the read's units to the mirrors until all are done,
// the read fails, or it is closed. It is the only goroutine that starts
// the read's connections, and it waits for all of them before it ends.
func (rr *rangeRead) coordinate() {
	d, r := rr.r.d, rr.r
	defer close(rr.done)
	defer func() {
		rr.cancel()
		rr.conns.Wait()
		d.mu.Lock()
		r.reads--
		if r.reads == 0 {
			r.waitFrom = time.Time{}
		}
		// For a reader still waiting.
		if err := rr.ctx.Err(); err != nil {
			rr.fail(err)
		} else {
			rr.fail(errors.New("the read was closed"))
		}
		d.mu.Unlock()
	}()
	ticker := time.NewTicker(tick)
	defer ticker.Stop()
	for {
		now := time.Now()
		free := d.c.budget.wait()
		d.mu.Lock()
		if rr.ctx.Err() != nil || rr.err != nil {
			d.mu.Unlock()
			return
		}
		complete := true
		for i := rr.next; i < len(rr.units); i++ {
			if rr.units[i].state != PieceDone {
				complete = false
				break
			}
		}
		if complete {
			d.mu.Unlock()
			return
		}
		blocked := rr.schedule(now)
		if len(rr.live) == 0 && !blocked {
			if err := rr.stuck(now); err != nil {
				rr.fail(err)
				d.mu.Unlock()
				return
			}
		}
		ch := rr.change
		d.mu.Unlock()
		select {
		case <-ch:
		case <-free:
		case <-ticker.C:
			d.mu.Lock()
			rr.checkStalls(time.Now())
			d.mu.Unlock()
		case <-rr.ctx.Done():
		}
	}
}

// usable reports whether m may take a range now. Called with download.mu
// held.
func (rr *rangeRead) usable(m *mirror, now time.Time) bool {
	return !m.noRanges && m.usable(now)
}

// schedule starts connections for the missing units in the window while
// a mirror can take them, and reports whether work waits for a connection
// token. Called with download.mu held.
func (rr *rangeRead) schedule(now time.Time) (blocked bool) {
	d := rr.r.d
	limit := rr.windowEnd()
	for {
		started := false
		for _, m := range d.ranked(now) {
			if !rr.usable(m, now) {
				continue
			}
			first, end, ok := rr.pick(m, limit, now)
			if !ok {
				continue
			}
			if !d.c.budget.take(m.host) {
				blocked = true
				continue
			}
			rr.start(m, first, end, now)
			started = true
		}
		if !started {
			return blocked
		}
	}
}

// windowEnd is one past the last unit that may be fetched now: the read
// holds at most rangeWindow bytes ahead of its reader. Called with
// download.mu held.
func (rr *rangeRead) windowEnd() int {
	var held int64
	for i := rr.next; i < len(rr.units); i++ {
		if held >= rangeWindow && i > rr.next {
			return i
		}
		held += rr.units[i].n
	}
	return len(rr.units)
}

// pick finds m's next run: the first missing units of the window that m
// did not send bad data for, a share of what is missing so that every
// mirror gets some, and at most rangeRun bytes. Called with download.mu
// held.
func (rr *rangeRead) pick(m *mirror, limit int, now time.Time) (first, end int, ok bool) {
	d := rr.r.d
	mine := func(i int) bool {
		u := &rr.units[i]
		return u.state == PieceMissing && !slices.Contains(u.bad, m.idx)
	}
	missing := 0
	first = -1
	for i := rr.next; i < limit; i++ {
		if rr.units[i].state == PieceMissing {
			missing++
			if first < 0 && mine(i) {
				first = i
			}
		}
	}
	if first < 0 {
		return 0, 0, false
	}
	slots := 0
	for _, o := range d.mirrors {
		if rr.usable(o, now) || (o.conns > 0 && !o.noRanges) {
			slots += o.limit
		}
	}
	share := int(math.Ceil(float64(missing) / float64(2*max(slots, 1))))
	most := max(1, int(rangeRun/max(rr.units[first].n, 1)))
	k := max(1, min(share, most))
	end = first + 1
	for end < limit && end-first < k && mine(end) {
		end++
	}
	return first, end, true
}

// start opens a connection to m for units [first, end). Called with
// download.mu held.
func (rr *rangeRead) start(m *mirror, first, end int, now time.Time) {
	ctx, cancel := context.WithCancel(rr.ctx)
	c := &rangeConn{m: m, ctx: ctx, cancel: cancel, first: first, end: end}
	c.last.Store(now.UnixNano())
	for i := first; i < end; i++ {
		rr.units[i].state = PieceActive
	}
	m.conns++
	rr.live = append(rr.live, c)
	rr.conns.Add(1)
	go func() {
		defer rr.conns.Done()
		err := rr.fetch(c)
		rr.ended(c, err)
	}()
}

// errBadRangePiece ends a connection whose piece failed its hash: the rest
// of its run goes to the other mirrors.
var errBadRangePiece = errors.New("a piece failed its hash")

// fetch asks c's mirror for its units in one request, and hands each on
// once it is whole and, with piece hashes, checked.
func (rr *rangeRead) fetch(c *rangeConn) error {
	d, r := rr.r.d, rr.r
	m := c.m
	// A unit's piece, off and n never change; its other fields are
	// guarded by download.mu.
	from := rr.units[c.first].off
	to := rr.units[c.end-1].off + rr.units[c.end-1].n
	rc, err := m.src.ReadRange(c.ctx, from, to-from)
	if err != nil {
		return err
	}
	defer rc.Close()
	var sum []byte
	hasher, _ := piece.NewHash(d.plan.Type)
	for i := c.first; i < c.end; i++ {
		u := struct {
			piece int
			n     int64
		}{rr.units[i].piece, rr.units[i].n}
		buf := make([]byte, u.n)
		for at := 0; at < len(buf); {
			k := min(len(buf)-at, d.readChunk(readSize))
			n, err := io.ReadFull(rc, buf[at:at+k])
			if n > 0 {
				m.bytes.Add(int64(n))
				c.got.Add(int64(n))
				c.last.Store(math.MaxInt64) // waiting for the rate limit is no stall
				if err := d.pay(c.ctx, n); err != nil {
					return err
				}
				c.last.Store(time.Now().UnixNano())
				d.lastByte.Store(time.Now().UnixNano())
			}
			at += n
			if err != nil {
				if errors.Is(err, io.EOF) {
					err = io.ErrUnexpectedEOF
				}
				return fmt.Errorf("piece %d: %w", u.piece, err)
			}
		}
		good := true
		if hasher != nil && d.plan.Verifiable() {
			hasher.Reset()
			hasher.Write(buf)
			sum = hasher.Sum(sum[:0])
			good = bytes.Equal(sum, d.plan.Hashes[u.piece])
		}
		d.mu.Lock()
		if !good {
			uu := &rr.units[i]
			uu.state = PieceMissing
			uu.bad = append(uu.bad, m.idx)
			m.strikes++
			if m.strikes >= maxStrikes && m.state != MirrorDropped {
				d.dropMirror(m, fmt.Errorf("sent %d pieces that fail their %s hash (last: piece %d)", m.strikes, d.plan.Type, u.piece))
			}
			d.mu.Unlock()
			return errBadRangePiece
		}
		uu := &rr.units[i]
		uu.state, uu.data = PieceDone, buf
		r.served[m.idx]++
		m.fails, m.stalls = 0, 0
		r.waitFrom = time.Time{} // bytes arrive: no longer waiting
		if d.plan.Verifiable() {
			r.checked++
			r.keep(u.piece, buf)
		}
		rr.changed()
		d.mu.Unlock()
	}
	return nil
}

// keep puts a verified piece in the cache, dropping the oldest beyond
// rangeCache. Called with download.mu held.
func (r *Ranges) keep(i int, b []byte) {
	if _, ok := r.cache[i]; ok {
		return
	}
	r.cache[i] = b
	r.order = append(r.order, i)
	held := int64(len(r.order)) * r.d.plan.Length
	for len(r.order) > 1 && held > rangeCache {
		delete(r.cache, r.order[0])
		r.order = r.order[1:]
		held -= r.d.plan.Length
	}
}

// ended takes back a connection that stopped: its unfinished units come
// free, and the mirror is judged by how it ended.
func (rr *rangeRead) ended(c *rangeConn, err error) {
	d := rr.r.d
	c.cancel()
	d.c.budget.release(c.m.host, false)
	now := time.Now()
	d.mu.Lock()
	defer d.mu.Unlock()
	m := c.m
	m.conns--
	if i := slices.Index(rr.live, c); i >= 0 {
		rr.live = slices.Delete(rr.live, i, i+1)
	}
	for i := c.first; i < c.end; i++ {
		if rr.units[i].state == PieceActive {
			rr.units[i].state = PieceMissing
		}
	}
	if c.got.Load() > 0 && m.state != MirrorDropped {
		m.fails, m.stalls = 0, 0
		m.reason = ""
	}
	switch {
	case err == nil, errors.Is(err, errBadRangePiece):
	case c.cut == cutStalled:
		m.stalls++
		m.backoff(now, 0, d.c.maxBackoff(), "stalled")
	case c.cut != "" || rr.ctx.Err() != nil:
	default:
		d.judge(m, err, now)
		if errors.Is(err, transport.ErrNoRanges) {
			m.reason = "it sends only whole files (no byte ranges), so it cannot serve a part"
		}
	}
	rr.changed()
}

// checkStalls cuts connections that received nothing for the stall
// timeout (five times as long before the first byte). Called with
// download.mu held.
func (rr *rangeRead) checkStalls(now time.Time) {
	for _, c := range rr.live {
		wait := rr.r.d.stallLimit(c.m)
		if c.got.Load() == 0 {
			wait *= 5
		}
		if c.cut == "" && now.Sub(time.Unix(0, c.last.Load())) > wait {
			c.cut = cutStalled
			c.cancel()
		}
	}
}

// stuck explains why nothing can run while units are missing, or returns
// nil when a mirror is only backing off (and the request's RetryFor has
// not run out). Called with download.mu held.
func (rr *rangeRead) stuck(now time.Time) error {
	d, r := rr.r.d, rr.r
	var wait time.Time
	ranged := false
	for _, m := range d.mirrors {
		if m.state == MirrorDropped || m.src == nil || m.noRanges {
			continue
		}
		ranged = true
		if m.retryAt.After(now) && (wait.IsZero() || m.retryAt.Before(wait)) {
			wait = m.retryAt
		}
	}
	if !wait.IsZero() {
		if r.waitFrom.IsZero() {
			r.waitFrom = now
		}
		if rf := d.req.RetryFor; rf > 0 && now.Sub(r.waitFrom) >= rf {
			return fmt.Errorf("%w: every mirror kept failing for %s (last: %s)", ErrGaveUp, rf.Round(time.Second), rr.lastReason())
		}
		return nil
	}
	for i := rr.next; i < len(rr.units); i++ {
		if u := rr.units[i]; u.state == PieceMissing && len(u.bad) > 0 && ranged {
			return badPieceError(u.piece, len(u.bad))
		}
	}
	if !ranged {
		whole := 0
		for _, m := range d.mirrors {
			if m.state != MirrorDropped && m.src != nil && m.noRanges {
				whole++
			}
		}
		if whole > 0 {
			return fmt.Errorf("%w: no mirror of the file sends parts of it", transport.ErrNoRanges)
		}
	}
	return noMirrorsError(d.lost)
}

// lastReason is the latest reason a mirror gave for backing off. Called
// with download.mu held.
func (rr *rangeRead) lastReason() string {
	for _, m := range rr.r.d.mirrors {
		if m.reason != "" {
			return m.reason
		}
	}
	return "no answer"
}
