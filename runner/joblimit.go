package runner

import (
	"sync"
	"time"

	"braid/engine"
	"braid/queue"
)

// jobLimits are the own speed limits (queue.Limit) of the jobs
// the runner runs now: one engine.Limiter a job, shared by its files (or
// its torrent), on top of the Client's limit. While any is held, one
// goroutine reads the queue's limits every poll interval and applies a
// change made elsewhere (another braid command) to the running downloads;
// SetJobLimit applies one made in this process at once. Neither restarts
// a download.
type jobLimits struct {
	mu   sync.Mutex
	held map[int64]*heldLimit
	stop chan struct{} // ends the follower; nil when none runs
}

type heldLimit struct {
	lim   *engine.Limiter
	users int
}

// holdLimit returns job id's limiter, made from the queue's limit for the
// job when it is the first run to hold it, and the function that lets it
// go. A failed read starts without a limit; the follower reads it again.
func (r *Runner) holdLimit(id int64) (*engine.Limiter, func()) {
	ls := &r.limits
	ls.mu.Lock()
	defer ls.mu.Unlock()
	h := ls.held[id]
	if h == nil {
		limits, _ := r.Queue.Limits()
		h = &heldLimit{lim: engine.NewLimiter(limits[id])}
		if ls.held == nil {
			ls.held = map[int64]*heldLimit{}
		}
		ls.held[id] = h
	}
	h.users++
	if ls.stop == nil {
		ls.stop = make(chan struct{})
		go r.followLimits(ls.stop)
	}
	var once sync.Once
	return h.lim, func() {
		once.Do(func() {
			ls.mu.Lock()
			defer ls.mu.Unlock()
			if h.users--; h.users == 0 {
				delete(ls.held, id)
			}
			if len(ls.held) == 0 && ls.stop != nil {
				close(ls.stop)
				ls.stop = nil
			}
		})
	}
}

// jobLimiter is the limiter of job id's run now, nil when none runs.
func (r *Runner) jobLimiter(id int64) *engine.Limiter {
	r.limits.mu.Lock()
	defer r.limits.mu.Unlock()
	if h := r.limits.held[id]; h != nil {
		return h.lim
	}
	return nil
}

// JobLimit is the own limit in force for job id's run now, in bytes per
// second (0: none), and whether the job runs here. Safe for concurrent
// use.
func (r *Runner) JobLimit(id int64) (int64, bool) {
	lim := r.jobLimiter(id)
	return lim.Rate(), lim != nil
}

// SetJobLimit sets job id's own download limit (bytes per second; 0
// removes it) in the queue and, when the job runs here, on its downloads
// at once, HTTP, FTP or BitTorrent alike, without restarting them. Safe
// for concurrent use.
func (r *Runner) SetJobLimit(id, bytesPerSec int64) error {
	if err := r.Queue.SetJob(id, queue.Limit(bytesPerSec)); err != nil {
		return err
	}
	if lim := r.jobLimiter(id); lim != nil {
		lim.SetRate(bytesPerSec)
	}
	return nil
}

// followLimits applies the queue's limits to the jobs running here every
// poll interval until stop closes.
func (r *Runner) followLimits(stop <-chan struct{}) {
	t := time.NewTicker(pollInterval)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
		}
		limits, err := r.Queue.Limits()
		if err != nil {
			continue // the database busy for a moment: next tick
		}
		r.limits.mu.Lock()
		for id, h := range r.limits.held {
			if bps := limits[id]; bps != h.lim.Rate() {
				h.lim.SetRate(bps)
			}
		}
		r.limits.mu.Unlock()
	}
}
