package engine

import (
	"context"
	"slices"
	"strings"
	"sync"
)

// budget is the connections a Client may have open at once: a total, and a
// cap per host that holds across every download of the Client, so that many
// files on one mirror never open a hundred connections to it. Both caps can
// change while downloads run. It is safe for concurrent use.
//
// A dispatcher takes a token for one host before it opens a connection and
// gives it back when the connection's goroutine has ended. When a cap is
// lowered below what is open, dispatchers cut their newest connections
// (trim) until the budget holds again; a cut is claimed in the budget first,
// so two downloads never both cut for the same excess.
type budget struct {
	mu      sync.Mutex
	total   int // most connections at once
	perHost int // most connections to one host at once; 0: no cap
	used    int
	hosts   map[string]*hostUse
	cutting int           // connections cut by trim that have not ended yet
	wake    chan struct{} // closed, and replaced, when a token may have come free
}

// hostUse is one host's share of the budget.
type hostUse struct {
	used, cutting int
}

func newBudget(total, perHost int) *budget {
	return &budget{total: total, perHost: perHost, hosts: map[string]*hostUse{}, wake: make(chan struct{})}
}

// hostKey is the key of a mirror's host:port: the same server however the
// URL spells it.
func hostKey(host string) string { return strings.ToLower(host) }

// take takes a token for a connection to host, and reports false when the
// total or host's cap is reached.
func (b *budget) take(host string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.used >= b.total {
		return false
	}
	key := hostKey(host)
	h := b.hosts[key]
	if h == nil {
		h = &hostUse{}
		b.hosts[key] = h
	}
	if b.perHost > 0 && h.used >= b.perHost {
		return false
	}
	b.used++
	h.used++
	return true
}

// acquire takes a token for a connection to host, waiting until one comes
// free or ctx ends; for work outside a dispatcher (a repair's fetches).
func (b *budget) acquire(ctx context.Context, host string) error {
	for {
		free := b.wait()
		if b.take(host) {
			return nil
		}
		select {
		case <-free:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// giveBack returns a token that take gave but no connection used. It wakes
// no one: waking dispatchers for a token they could not use either would
// keep them trading it back and forth; one that failed to take it in the
// meantime tries again on its next tick.
func (b *budget) giveBack(host string) { b.put(host, false, false) }

// release gives back the token of an ended connection to host; trimmed
// says trim cut it.
func (b *budget) release(host string, trimmed bool) { b.put(host, trimmed, true) }

func (b *budget) put(host string, trimmed, wake bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	key := hostKey(host)
	h := b.hosts[key]
	if h == nil || h.used == 0 {
		return // not taken: nothing to give back
	}
	b.used--
	h.used--
	if trimmed {
		b.cutting--
		h.cutting--
	}
	if h.used == 0 {
		delete(b.hosts, key)
	}
	if wake {
		b.wakeLocked()
	}
}

// wait returns a channel that is closed when a token may have come free
// (a connection ended or a cap grew). Take it before trying take, so a
// release in between is not missed.
func (b *budget) wait() <-chan struct{} {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.wake
}

func (b *budget) wakeLocked() {
	close(b.wake)
	b.wake = make(chan struct{})
}

// set changes the caps; n <= 0 keeps a cap as it is, except perHost where
// a negative value removes the cap.
func (b *budget) set(total, perHost int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if total > 0 {
		b.total = total
	}
	switch {
	case perHost > 0:
		b.perHost = perHost
	case perHost < 0:
		b.perHost = 0
	}
	b.wakeLocked()
}

// caps returns the total and per-host caps.
func (b *budget) caps() (total, perHost int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.total, b.perHost
}

// claimCut reports whether a connection to host should be cut because a
// cap was lowered below what is open, counting the connections already
// being cut; true claims the cut, and release(host, true) settles it.
func (b *budget) claimCut(host string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	h := b.hosts[hostKey(host)]
	if h == nil {
		return false
	}
	over := b.used-b.cutting > b.total
	overHost := b.perHost > 0 && h.used-h.cutting > b.perHost
	if !over && !overHost {
		return false
	}
	b.cutting++
	h.cutting++
	return true
}

// cutLimit is why trim cut a connection. Another cut may overwrite it
// (segment.cut), so the budget's count of cuts follows segment.trimmed.
const cutLimit = "connection limit lowered"

// trim cuts the download's newest connections while the Client's budget is
// over a cap that was lowered, and gives a mirror whose per-mirror cap
// changed its new cap. The dispatcher calls it on its ticker, with d.mu
// held. The cut pieces come free and are fetched again when a token allows.
func (d *download) trim() {
	if n := d.c.perMirror(); n != d.perMirror {
		old := d.perMirror
		d.perMirror = n
		for _, m := range d.mirrors {
			// A mirror whose cap is its own (its metalink entry, a 503,
			// no ranges) keeps it.
			if !m.noRanges && m.limit == min(old, m.ownLimit()) {
				m.limit = min(n, m.ownLimit())
			}
		}
	}
	for i := len(d.segs) - 1; i >= 0; i-- {
		s := d.segs[i]
		if s.cut == "" && d.c.budget.claimCut(s.m.host) {
			s.cut = cutLimit
			s.trimmed.Store(true)
			s.cancel()
		}
	}
}

// ownLimit is the cap the mirror's metalink entry sets, or a large number.
func (m *mirror) ownLimit() int {
	if m.url.MaxConnections > 0 {
		return m.url.MaxConnections
	}
	return 1 << 30
}

// load is the connections open to host now.
func (b *budget) load(host string) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	if h := b.hosts[hostKey(host)]; h != nil {
		return h.used
	}
	return 0
}

// spread orders the mirrors a small file of a batch may use by how busy
// their hosts are, least first (stable, so ties keep their rank): each
// such file goes whole to one mirror, and this spreads a batch over the
// mirrors, a slow one getting fewer files as its connections last longer.
// Other files keep the ranking. Called with d.mu held.
func (d *download) spread(ms []*mirror) []*mirror {
	if !d.req.Batch || d.file.MaxConnections != 1 || len(ms) < 2 {
		return ms
	}
	load := make(map[*mirror]int, len(ms))
	for _, m := range ms {
		load[m] = d.c.budget.load(m.host)
	}
	slices.SortStableFunc(ms, func(a, b *mirror) int { return load[a] - load[b] })
	return ms
}
