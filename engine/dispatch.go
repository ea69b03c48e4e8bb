package engine

import (
	"context"
	"errors"
	"time"
)

// dispatch hands out work until every piece is done, the download fails,
// or ctx ends. It is the only goroutine that starts connections, and it
// waits for every one it started before it returns.
func (d *download) dispatch(ctx context.Context) error {
	ticker := time.NewTicker(tick)
	defer ticker.Stop()
	last := time.Now()
	wanted := false // work is waiting for a connection token
	var fatal error
	canceled := ctx.Done()
	for {
		now := time.Now()
		freed := d.c.budget.wait() // before schedule: a token freed meanwhile wakes us
		d.mu.Lock()
		stopping := fatal != nil || ctx.Err() != nil
		if !stopping {
			wanted = d.schedule(ctx, now)
		}
		active := len(d.segs)
		complete := d.done == len(d.pieces)
		mend := false
		if active == 0 && !stopping && !complete && !wanted {
			fatal = d.stuck(now)
			switch {
			case fatal == nil:
				d.startWaiting(now)
			case d.req.Parity != nil && !d.parityTried && d.done > 0 && (errors.Is(fatal, ErrBadPiece) || errors.Is(fatal, ErrNoMirrors)):
				// No mirror can send what is missing, and every
				// other piece is done: the parity set's turn (not
				// for a file no mirror sent a piece of: that is a
				// broken link, not damage).
				d.parityTried, mend = true, true
			}
		}
		if fatal == nil && !stopping {
			fatal = d.checkWaiting(now)
		}
		d.mu.Unlock()
		if mend {
			if fatal = d.mendFromParity(ctx, fatal); fatal == nil {
				continue
			}
		}
		if active == 0 {
			switch {
			case fatal != nil:
				return fatal
			case ctx.Err() != nil:
				return ctx.Err()
			case complete:
				return nil
			}
		}
		var slot <-chan struct{}
		if wanted && !stopping {
			slot = freed
		}
		select {
		case s := <-d.ended:
			if err := d.end(ctx, s); err != nil && fatal == nil {
				fatal = err
				d.cutAll(cutStop)
			}
		case now := <-ticker.C:
			d.mu.Lock()
			d.sample(now.Sub(last))
			d.checkStalls(now)
			d.trim()
			d.mu.Unlock()
			last = now
		case <-slot:
		case <-canceled:
			canceled = nil
			d.cutAll(cutStop)
		}
	}
}

// schedule starts connections while a mirror can take work and the
// Client's budget has a token for its host. It reports whether work is
// waiting for a token. Called with d.mu held.
func (d *download) schedule(ctx context.Context, now time.Time) bool {
	for !d.atFileLimit() {
		started, blocked := false, false
		for _, m := range d.spread(d.ranked(now)) {
			if !d.c.budget.take(m.host) {
				blocked = true
				continue
			}
			start, end, ok := d.pick(m, now)
			if !ok {
				d.c.budget.giveBack(m.host)
				continue
			}
			d.start(ctx, m, start, end, now)
			started = true
			break
		}
		if !started {
			return blocked && d.wants(now)
		}
	}
	return false
}

// wants reports whether some mirror could take work now, if it had a
// connection: free pieces are left and a mirror is usable. Called with d.mu
// held.
func (d *download) wants(now time.Time) bool {
	if d.done == len(d.pieces) || d.atFileLimit() {
		return false
	}
	for _, m := range d.mirrors {
		if m.usable(now) {
			return true
		}
	}
	return false
}

// atFileLimit reports whether the file has as many connections open as its
// metalink allows for all mirrors together (File.MaxConnections). A
// connection counts from its start until the dispatcher has taken it back
// in end, so one that was cut still counts until its goroutine is gone.
// Called with d.mu held.
func (d *download) atFileLimit() bool {
	return d.file.MaxConnections > 0 && len(d.segs) >= d.file.MaxConnections
}

// ranked lists the mirrors that may take work now, best first: measured
// fast mirrors by speed, then untried ones in metalink order (priority,
// then the user's locations), then measured slow ones. Called with d.mu
// held.
func (d *download) ranked(now time.Time) []*mirror {
	var best float64
	for _, m := range d.mirrors {
		best = max(best, m.rate)
	}
	tier := func(m *mirror) int {
		switch {
		case m.rate == 0:
			return 1
		case m.rate >= best/4:
			return 0
		}
		return 2
	}
	out := make([]*mirror, 0, len(d.mirrors))
	for _, m := range d.mirrors {
		if m.usable(now) {
			out = append(out, m)
		}
	}
	// Insertion sort: a handful of mirrors, and it is stable.
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && d.before(out[j], out[j-1], tier); j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

func (d *download) before(a, b *mirror, tier func(*mirror) int) bool {
	ta, tb := tier(a), tier(b)
	if ta != tb {
		return ta < tb
	}
	if ta != 1 && a.rate != b.rate {
		return a.rate > b.rate
	}
	return a.idx < b.idx
}

// start opens a connection for pieces [start, end) of m. Called with d.mu
// held.
func (d *download) start(ctx context.Context, m *mirror, start, end int, now time.Time) {
	sctx, cancel := context.WithCancel(ctx)
	s := &segment{m: m, ctx: sctx, cancel: cancel, cur: start, end: end, started: now, probe: start == end}
	s.last.Store(now.UnixNano())
	for i := start; i < end; i++ {
		d.pieces[i] = PieceActive
		d.filler[i] = int16(m.idx)
	}
	m.conns++
	d.segs = append(d.segs, s)
	go func() {
		s.err = d.fetch(s)
		d.ended <- s
	}()
}

// end takes back a connection that stopped: its unfinished pieces come
// free, and the mirror is judged by how it ended. It returns an error that
// ends the whole download (a disk error).
func (d *download) end(ctx context.Context, s *segment) error {
	s.cancel()
	d.c.budget.release(s.m.host, s.trimmed.Load())
	now := time.Now()
	d.mu.Lock()
	defer d.mu.Unlock()
	for i, x := range d.segs {
		if x == s {
			d.segs = append(d.segs[:i], d.segs[i+1:]...)
			break
		}
	}
	m := s.m
	m.conns--
	if s.probe {
		m.probing = false
		if m.probed {
			m.probedAt = now
		}
	}
	m.cursor = -1
	if s.err == nil && s.cur >= s.end && !s.probe {
		m.cursor = s.end
	}
	if s.cur < s.end {
		d.notePartial(s.cur, s.partial.Load())
	}
	for i := s.cur; i < s.end; i++ {
		if d.pieces[i] == PieceActive {
			d.pieces[i] = PieceMissing
			d.filler[i] = -1
		}
	}
	if s.got.Load() > 0 {
		// Bytes arrived: whatever went wrong before is over.
		m.fails, m.stalls = 0, 0
		if m.state != MirrorDropped {
			m.reason = ""
		}
	}
	var de *diskError
	switch {
	case errors.As(s.err, &de):
		return de
	case s.err == nil:
	case s.cut == cutStalled:
		m.stalls++
		m.backoff(now, 0, d.c.maxBackoff(), "stalled")
	case s.cut != "" || ctx.Err() != nil || errors.Is(s.err, errDropped):
		// Cut by the engine: the mirror did nothing wrong (or was judged
		// already).
	default:
		d.judge(m, s.err, now)
	}
	return nil
}

// judge decides what a mirror's error means for it: only evidence against
// the mirror drops it; anything else is temporary, however often it
// happens. Called with d.mu held.
func (d *download) judge(m *mirror, err error, now time.Time) {
	kind, after := classify(err)
	switch kind {
	case errRetryAfter:
		if m.conns > 0 {
			// It refuses more connections than it has now: stay at that.
			m.limit = max(1, m.conns)
		}
		m.backoff(now, after, d.c.maxBackoff(), err.Error())
	case errNoRanges:
		// Not the mirror's fault, and no reason to wait: its next segment
		// is a stream from the start of the file (see fetch).
		m.markNoRanges()
	case errPermanent:
		d.dropMirror(m, err)
	default:
		m.fails++
		m.backoff(now, 0, d.c.maxBackoff(), err.Error())
	}
}

// checkStalls cuts connections that received nothing for the stall
// timeout. Called with d.mu held.
func (d *download) checkStalls(now time.Time) {
	for _, s := range d.segs {
		wait := d.stallLimit(s.m)
		if s.got.Load() == 0 {
			wait *= 5 // time to first byte: a busy server may think a while
		}
		if s.cut == "" && now.Sub(time.Unix(0, s.last.Load())) > wait {
			s.cut = cutStalled
			s.cancel()
		}
	}
}

// stallLimit is how long a connection to m may go without a byte: the
// Client's stall timeout, or longer for a mirror so slow that a few of
// its packets take longer than that, up to the back-off cap.
func (d *download) stallLimit(m *mirror) time.Duration {
	limit := d.c.stallTimeout()
	if m.rate > 0 {
		// The time four 64 KiB windows take at its speed.
		slow := time.Duration(float64(256<<10) / m.rate * float64(time.Second))
		limit = max(limit, min(slow, d.c.maxBackoff()))
	}
	return limit
}

// cutAll cuts every open connection.
func (d *download) cutAll(why string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, s := range d.segs {
		if s.cut == "" {
			s.cut = why
		}
		s.cancel()
	}
}

// stuck explains why nothing can run while pieces are missing, or returns
// nil when a mirror is only waiting for its back-off to end. Called with
// d.mu held.
func (d *download) stuck(now time.Time) error {
	for _, m := range d.mirrors {
		if m.state != MirrorDropped && m.src != nil && m.retryAt.After(now) {
			return nil
		}
	}
	for i, st := range d.pieces {
		if st == PieceBad {
			return badPieceError(i, len(d.bad[i]))
		}
	}
	return noMirrorsError(d.lost)
}
