package ui

import (
	"context"
	"sync/atomic"
	"time"
)

// poller reads the backend for the window. Its read runs on the ticker's
// goroutine (or a test's), never on the UI goroutine, so a slow database
// never freezes the window; what the UI goroutine tells it (which job is
// selected, whether the segment map shows) goes through atomics.
type poller struct {
	b Backend

	selected atomic.Int64 // JobID in the details pane; 0: none
	pieces   atomic.Bool  // the details pane shows the segment map
	reload   atomic.Bool  // read the whole queue on the next tick
	detail   atomic.Bool  // read the selected job's detail on the next tick
	wake     chan struct{}

	// Owned by the reading goroutine.
	liveIDs map[JobID]bool
	first   bool
}

// reading is what one tick read, handed to the UI goroutine.
type reading struct {
	all      []Job // the whole queue, when reloaded
	reloaded bool
	err      error // reading the whole queue failed
	live     []Job
	detail   *Detail
	// pace is how often what is live changes by itself (pace): 0 when
	// nothing is live and the ticker may stop.
	pace pace
}

func newPoller(b Backend) *poller {
	return &poller{b: b, wake: make(chan struct{}, 1), liveIDs: map[JobID]bool{}, first: true}
}

// reloadSoon makes the next tick read the whole queue and ticks now. Safe
// from any goroutine.
func (p *poller) reloadSoon() {
	p.reload.Store(true)
	p.detail.Store(true)
	p.poke()
}

// refreshDetail makes the next tick read the selected job's detail and
// ticks now. Safe from any goroutine.
func (p *poller) refreshDetail() {
	p.detail.Store(true)
	p.poke()
}

func (p *poller) poke() {
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// read is one tick's work: live progress always (from memory), the whole
// queue when asked or when the set of live jobs changed (a job started,
// finished or failed), and the selected job's detail when it is live or
// was asked for.
func (p *poller) read() reading {
	var r reading
	r.live = p.b.Active()
	changed := len(r.live) != len(p.liveIDs)
	live := make(map[JobID]bool, len(r.live))
	for _, j := range r.live {
		live[j.ID] = true
		if !p.liveIDs[j.ID] {
			changed = true
		}
	}
	p.liveIDs = live
	if p.reload.Swap(false) || changed || p.first {
		p.first = false
		r.all, r.err = p.b.Jobs()
		r.reloaded = true
	}
	sel := JobID(p.selected.Load())
	if sel != 0 && (p.detail.Swap(false) || live[sel] || changed) {
		// A job removed meanwhile has no detail; the reload that
		// follows its removal clears the pane.
		if d, err := p.b.Detail(sel, p.pieces.Load()); err == nil {
			r.detail = &d
		}
	}
	r.pace = paceOf(r.live)
	return r
}

// loop ticks every interval while bytes move, every waitInterval while
// the busiest live job waits for the network, every seedInterval while
// all that is live is torrents seeding to nobody (paceOf), and sleeps on
// the wake channel while nothing is: an idle window costs no CPU. apply gets
// each reading; it must hand it to the UI goroutine (fyne.Do) and return.
func (p *poller) loop(ctx context.Context, interval time.Duration, apply func(reading)) {
	var changes <-chan struct{} // nil: the backend does not say
	if n, ok := p.b.(Notifier); ok {
		changes = n.Changes()
	}
	// The ticker runs only while something is live: stopped, it costs
	// nothing, which keeps an idle window at zero CPU.
	t := time.NewTicker(interval)
	t.Stop()
	defer t.Stop()
	var every time.Duration // the ticker's period now; 0: stopped
	for {
		r := p.read()
		apply(r)
		want := r.pace.period(interval)
		if want != every {
			if want == 0 {
				t.Stop()
			} else {
				t.Reset(want)
			}
			every = want
		}
		var tick <-chan time.Time
		if every != 0 {
			tick = t.C
		}
		select {
		case <-ctx.Done():
			return
		case <-tick:
		case <-p.wake:
		case <-changes:
			p.reload.Store(true)
			p.detail.Store(true)
		}
	}
}

// seedInterval is how often the window reads the backend while all that
// is live is torrents seeding to nobody: their rows change only when a
// peer comes, and reading them four times a second cost an idle window
// with two such seeds about 5 % of a core.
const seedInterval = 2 * time.Second

// waitInterval is how often the window reads the backend while nothing
// live moves bytes and a download waits for the network: its row counts
// down to the next try in seconds, and its retry starting is told at
// once (Notifier). Read at the full rate, a waiting download made every
// seed beside it be read four times a second as well.
const waitInterval = time.Second

// pace is how fast the fastest-changing live job changes by itself.
type pace int

const (
	paceStill   pace = iota // nothing live: the ticker stops
	paceSeeds               // torrents seeding to nobody
	paceWaiting             // downloads waiting for the network
	paceBusy                // bytes move, or a check runs
)

// period is the ticker's period for p, interval being the full rate.
func (p pace) period(interval time.Duration) time.Duration {
	switch p {
	case paceBusy:
		return interval
	case paceWaiting:
		return max(interval, waitInterval)
	case paceSeeds:
		return max(interval, seedInterval)
	}
	return 0
}

// paceOf is the pace of the live jobs: the window reads them all as often
// as the fastest needs, so each kind asks no more than it shows.
func paceOf(live []Job) pace {
	p := paceStill
	for _, j := range live {
		switch {
		case j.State == Seeding && j.Peers == 0 && j.Seeds == 0 && j.Upload == 0:
			p = max(p, paceSeeds)
		case j.State == Waiting:
			p = max(p, paceWaiting)
		default:
			return paceBusy
		}
	}
	return p
}
