package transport

import (
	"context"
	"sync"
	"time"
)

var _ Continuer = (*FTPSource)(nil)

// Continuer is a Source for which a range that starts where its last one
// ended costs nothing: the transfer that served the last range goes on.
// A scheduler should give such a mirror contiguous ranges. FTP is one:
// there, starting a new transfer means aborting the running one, and
// everything the server had sent ahead is lost.
type Continuer interface {
	Source
	// ContinuesTransfers is a marker: it does nothing.
	ContinuesTransfers()
}

// ContinuesTransfers marks FTPSource as a Continuer.
func (s *FTPSource) ContinuesTransfers() {}

// parkFor is how long a finished range's transfer waits for the next
// range to continue it before it is aborted.
const parkFor = 2 * time.Second

// parking holds the transfers of ranges that were read to their end while
// the server goes on sending, each waiting for a range that starts at its
// position. A transfer nobody continues is aborted after parkFor.
type parking struct {
	mu     sync.Mutex
	parked []*parked
	closed bool
	wg     sync.WaitGroup // aborts in progress
}

type parked struct {
	b     *ftpBody
	pos   int64 // file offset of the transfer's next byte
	timer *time.Timer
}

// park keeps b's transfer running for a range that continues it, and
// reports whether it did; it does not when b ended at the end of the
// file or the source is closed.
func (p *parking) park(b *ftpBody) bool {
	pos := b.off + b.n
	b.s.sizeMu.Lock()
	size := b.s.remoteSize
	b.s.sizeMu.Unlock()
	if size >= 0 && pos >= size {
		return false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return false
	}
	b.c.end() // its context's hook goes; the next range brings its own
	e := &parked{b: b, pos: pos}
	e.timer = time.AfterFunc(parkFor, func() { p.expire(e) })
	p.parked = append(p.parked, e)
	return true
}

// take returns the parked transfer whose next byte is at off, or nil.
func (p *parking) take(off int64) *parked {
	p.mu.Lock()
	defer p.mu.Unlock()
	for i, e := range p.parked {
		if e.pos == off && e.timer.Stop() {
			p.parked = append(p.parked[:i], p.parked[i+1:]...)
			return e
		}
	}
	return nil
}

// abortOne aborts the transfer parked longest, if any, so its login can
// serve another range.
func (p *parking) abortOne() {
	p.mu.Lock()
	var e *parked
	for i, x := range p.parked {
		if x.timer.Stop() {
			e = x
			p.parked = append(p.parked[:i], p.parked[i+1:]...)
			break
		}
	}
	p.mu.Unlock()
	if e != nil {
		e.abort()
	}
}

// expire aborts a transfer nobody continued.
func (p *parking) expire(e *parked) {
	p.mu.Lock()
	found := false
	for i, x := range p.parked {
		if x == e {
			p.parked = append(p.parked[:i], p.parked[i+1:]...)
			found = true
			break
		}
	}
	if found {
		p.wg.Add(1)
	}
	p.mu.Unlock()
	if found {
		defer p.wg.Done()
		e.abort()
	}
}

// close aborts every parked transfer and waits for aborts in progress.
func (p *parking) close() {
	p.mu.Lock()
	p.closed = true
	var all []*parked
	for _, e := range p.parked {
		if e.timer.Stop() {
			all = append(all, e)
		}
	}
	p.parked = nil
	p.mu.Unlock()
	for _, e := range all {
		e.abort()
	}
	p.wg.Wait()
}

// abort ends a parked transfer as Close ends a cut one, and pools or
// discards its control connection.
func (e *parked) abort() {
	e.b.c.begin(context.Background())
	e.b.endTransfer(true)
}
