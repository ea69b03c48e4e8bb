package runner

import (
	"context"
	"sync"
	"time"

	"braid/engine"
	"braid/engine/netconf"
	"braid/queue"
)

// Service keeps a queue running for a face (the window, braid queue run,
// its RPC server), so that none of them loops: it runs the queued jobs
// until none is left and then sleeps until woken (Wake); it holds them
// while the queue's schedule does not let downloads run and stops a run
// (the jobs back to queued) when a time window ends; it makes the engine
// client from the settings, with the face's limits and the schedule's
// alternative limit ("Slow") over them; and it stops the seeding of a
// torrent the user paused in the queue from another process. The face
// only says what happens, through the hooks.
//
// Make it with NewService and set the fields before Serve or Drain; the
// methods are safe for concurrent use.
type Service struct {
	// Runner runs the jobs; the service gives it its Client before each
	// run.
	Runner *Runner
	// MaxConns, MaxConnsPerHost and Limit, when above 0, hold over the
	// settings (braid queue run's flags).
	MaxConns, MaxConnsPerHost int
	Limit                     int64
	// Network is the route of the client's connections (the window's
	// proxy setting); nil: the engine's default.
	Network *netconf.Network
	// Now is the clock the schedule is read by; nil: time.Now.
	Now func() time.Time
	// Busy, when not nil, is called as a run starts (true) and after it
	// has stopped (false), from the goroutine of Serve or Drain.
	Busy func(busy bool)
	// Held, when not nil, is called when the schedule holds queued jobs,
	// with the schedule and the moment it was read at, and again at each
	// change (a wake, the schedule's next change) while it holds them.
	Held func(s queue.Schedule, now time.Time)
	// Failed, when not nil, is called with what went wrong in a run of
	// Serve (Runner.Run's joined errors), unless it stopped with ctx.
	Failed func(err error)

	wake      chan struct{}
	downloads *engine.Limiter // the one download budget of every client made

	mu     sync.Mutex
	client *engine.Client // for the next run; nil: make one
	// made are the settings client was made from; nil when it was given
	// (UseClient) or made without them.
	made *queue.Settings
	stop func() // yields the run under way; nil between runs

	checking map[int64]bool // jobs a check (Check) has in hand
	checked  uint64         // checks begun (Activity)
	checks   sync.WaitGroup // the checks under way
}

// NewService returns a service that keeps r's queue running.
func NewService(r *Runner) *Service {
	return &Service{Runner: r, wake: make(chan struct{}, 1), downloads: engine.NewLimiter(0)}
}

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

// Wake tells the service that the queue changed (a job added or resumed,
// a change by another process): queued jobs run now, as the schedule lets
// them, the schedule is read again, and a torrent whose seeding was
// paused in the queue (braid queue pause) stops seeding. It reads the
// queue once and does not wait for the run.
func (s *Service) Wake() {
	s.stopPausedSeeds()
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// Activity reports whether the service has anything under way that
// changes the queue by itself (a job's run, a check, a torrent seeding),
// and a count that moves when a run begins and when its claim is made,
// and when a check begins and ends: a face that shows the queue reads it
// again while anything is under way, once after, and when the count
// moved (a run that began and ended between two looks); a change made by
// a face it is told of. Safe for concurrent use.
func (s *Service) Activity() (working bool, began uint64) {
	working, began = s.Runner.Activity()
	s.mu.Lock()
	defer s.mu.Unlock()
	return working || len(s.checking) > 0, began + s.checked
}

// Serve keeps the queue running until ctx ends: it runs the queued jobs
// at once when start is true, else at the first Wake, and again at every
// Wake after the queue ran empty. It returns once the run under way has
// stopped, its jobs paused with their progress.
func (s *Service) Serve(ctx context.Context, start bool) {
	for {
		if !start {
			select {
			case <-ctx.Done():
				return
			case <-s.wake:
			}
		}
		var err error
		start, err = s.runOnce(ctx)
		if ctx.Err() != nil {
			return
		}
		if err != nil && s.Failed != nil {
			s.Failed(err)
		}
	}
}

// Drain runs the queued jobs, as the schedule lets them, until none is
// left or ctx ends: a schedule that holds them holds Drain, and a time
// window that ends stops the jobs and waits for the next one. It returns
// the runs' errors (Runner.Run); torrents finished may seed on
// (WaitSeeding).
func (s *Service) Drain(ctx context.Context) error {
	for {
		again, err := s.runOnce(ctx)
		if !again {
			return err
		}
	}
}

// runOnce waits until the schedule lets downloads run, then runs the
// queue until it is empty, ctx ends, the schedule's next change comes or
// Rescheduled stops it. It reports whether the run stopped for now with
// its jobs queued, to run again once allowed.
func (s *Service) runOnce(ctx context.Context) (again bool, err error) {
	r := s.Runner
	allowed, ok := s.waitSchedule(ctx)
	if !ok {
		if ctx.Err() != nil {
			return false, ctx.Err()
		}
		// Nothing queued is held: torrents seeding when Braid last
		// stopped seed on, as a run would have them.
		r.seedOnce()
		return false, nil
	}
	run, stop := s.scheduledRun(ctx, allowed)
	defer stop()
	s.mu.Lock()
	// A client made for an earlier run is given with the settings it was
	// made from, so the runner applies what changed since before a
	// download starts (a limit set between runs holds from its first
	// byte).
	if c := s.clientLocked(); s.made != nil {
		r.useClient(c, *s.made)
	} else {
		r.UseClient(c)
	}
	s.stop = stop
	s.mu.Unlock()
	st, _ := r.Queue.Settings() // unreadable: not required, as by default
	r.RequireSignature = st.RequireSignature
	if s.Busy != nil {
		s.Busy(true)
	}
	err = r.Run(run)
	yielded := run.Err() != nil
	stop()
	s.mu.Lock()
	s.stop = nil
	s.mu.Unlock()
	if s.Busy != nil {
		s.Busy(false)
	}
	// Stopped by the schedule or a new limit rather than by ctx: the
	// jobs it let go are queued still.
	return yielded && ctx.Err() == nil, err
}

// waitSchedule waits until the schedule lets downloads run, and returns
// the time it found them allowed at; false when ctx ends first, or when
// the schedule holds and no job is queued to hold. A Wake reads the
// schedule again.
func (s *Service) waitSchedule(ctx context.Context) (time.Time, bool) {
	q := s.Runner.Queue
	for {
		st, err := q.Settings()
		sched := st.Schedule
		now := s.now()
		if err != nil || sched.Allowed(now) {
			// A schedule that cannot be read does not stop downloads.
			return now, true
		}
		if _, queued, err := q.NextQueued(nil); err == nil && !queued {
			return time.Time{}, false
		}
		if s.Held != nil {
			s.Held(sched, now)
		}
		var at <-chan time.Time
		var t *time.Timer
		if next, ok := sched.NextChange(now); ok {
			t = time.NewTimer(next.Sub(now))
			at = t.C
		}
		select {
		case <-ctx.Done():
		case <-s.wake:
		case <-at:
		}
		if t != nil {
			t.Stop()
		}
		if ctx.Err() != nil {
			return time.Time{}, false
		}
	}
}

// scheduledRun is the context of one run that the schedule allowed at
// allowed: it ends with ctx, or when the schedule's next change after
// allowed comes (the end of that time window; at once if it has come
// since), or when stop is called (Rescheduled). Only ctx's end pauses the
// jobs in hand; the others yield them back to the queue (ErrYield). The
// next change is taken from the moment the run was allowed, not from
// now: a window that ended in between would otherwise give the next
// one's start, and the run would go on through the hours the schedule
// holds (a run allowed at 04:59:59 and timed at 05:00 ran a job to its
// end after a 04:00-05:00 window, under Wine).
func (s *Service) scheduledRun(ctx context.Context, allowed time.Time) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	stop := func() { cancel(ErrYield) }
	st, err := s.Runner.Queue.Settings()
	sched := st.Schedule
	if err != nil {
		return ctx, stop
	}
	if next, ok := sched.NextChange(allowed); ok {
		t := time.AfterFunc(max(next.Sub(s.now()), 0), stop)
		return ctx, func() { t.Stop(); stop() }
	}
	return ctx, stop
}

// Client is the engine client of the next run, made from the settings
// with the service's limits and the schedule's over them; a face uses it
// for its own requests (a repair, a relink), under the same limits. A
// Client's limits are fixed once it has started a download, so a change
// of settings (LimitsChanged) takes effect with the next client.
func (s *Service) Client() *engine.Client {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.clientLocked()
}

// ReadOptions are how the service's runs read a source: through its
// client's network (the face's proxy setting). A face that adds jobs for
// the service reads their sources so, before any run has begun too.
func (s *Service) ReadOptions() ResolveOptions {
	return ReadThrough(s.Client(), nil)
}

// UseClient makes c the client of the runs from now on, in place of one
// made from the settings, until the limits or the schedule change.
func (s *Service) UseClient(c *engine.Client) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.client, s.made = c, nil
}

func (s *Service) clientLocked() *engine.Client {
	if s.client != nil {
		return s.client
	}
	c := &engine.Client{}
	s.made = nil
	if st, err := settingsInForce(s.Runner.Queue); err == nil {
		c, s.made = NewClient(st), &st
	}
	if s.MaxConns > 0 {
		c.MaxConns = s.MaxConns
	}
	if s.MaxConnsPerHost > 0 {
		c.MaxConnsPerHost = s.MaxConnsPerHost
	}
	if s.Limit > 0 {
		c.Limit = s.Limit
	}
	s.downloads.SetRate(c.Limit)
	c.Limiter = s.downloads
	c.Network = s.Network
	s.client = c
	return c
}

// NewClient returns a new engine Client with the settings' limits:
// total, per-host and per-mirror connections and the speed limit. A
// Runner applies later changes to it while it downloads.
func NewClient(s queue.Settings) *engine.Client {
	return &engine.Client{MaxConns: s.MaxConns, MaxConnsPerMirror: s.MaxConnsPerMirror,
		MaxConnsPerHost: s.MaxConnsPerHost, Limit: s.SpeedLimit}
}

// settingsInForce are the queue's settings with the schedule's
// alternative limit ("Slow", when on) over the speed setting.
func settingsInForce(q *queue.Queue) (queue.Settings, error) {
	st, err := q.Settings()
	if err != nil {
		return st, err
	}
	st.SpeedLimit = st.Schedule.Limit(st.SpeedLimit)
	return st, nil
}

// LimitsChanged puts the download limit in force now (the service's, else
// the setting's, or the schedule's alternative one) into the budget every
// download and torrent takes from, so the ones under way slow down or
// speed up as they go; the next run's client is made under it.
func (s *Service) LimitsChanged() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.client = nil
	s.clientLocked() // sets the budget's rate
}

// Rescheduled is for a change of the schedule's times (its windows, a
// pause of all): the run under way stops, its jobs queued with their
// progress, and the queue runs again under the new schedule.
func (s *Service) Rescheduled() {
	s.mu.Lock()
	s.client = nil
	stop := s.stop
	s.mu.Unlock()
	if stop != nil {
		stop()
	}
	s.Wake()
}

// WaitSeeding waits until every torrent seeding now has reached its seed
// ratio or time or was stopped, or ctx ends, for a face that ends once
// its torrents are done (braid queue run). A torrent whose seeding is
// paused in the queue meanwhile stops: at once on a Wake, else within a
// poll. report, when not nil, is called every every.
func (s *Service) WaitSeeding(ctx context.Context, every time.Duration, report func()) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		for _, j := range s.Runner.seedingNow() {
			select {
			case <-j.Done():
			case <-ctx.Done():
				return
			}
		}
	}()
	poll := time.NewTicker(pollInterval)
	defer poll.Stop()
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-done:
			return
		case <-poll.C:
			s.stopPausedSeeds()
		case <-tick.C:
			if report != nil {
				report()
			}
		}
	}
}

// stopPausedSeeds stops the torrents seeding whose seeding the queue says
// is paused (braid queue pause, in another process). A failed read is
// tried again at the next look.
func (s *Service) stopPausedSeeds() {
	// The torrents are read before the queue: one paused and resumed
	// between the two readings seeds as a new torrent, which stays.
	seeding := s.Runner.seedingNow()
	if len(seeding) == 0 {
		return
	}
	paused, err := s.Runner.Queue.SeedPaused()
	if err != nil {
		return
	}
	for id, tj := range seeding {
		if paused[id] {
			s.Runner.stopSeedingOf(id, tj)
		}
	}
}
