package bridge

import (
	"context"
	"slices"
	"time"

	"braid/queue"
	"braid/runner"
	"braid/ui"
)

// Schedule returns the queue's schedule as the window edits it.
func (b *Backend) Schedule() (ui.Schedule, error) {
	s, err := b.q.Schedule()
	if err != nil {
		return ui.Schedule{}, err
	}
	out := ui.Schedule{PausedUntil: s.PausedUntil, AltSpeed: s.AltSpeed}
	for _, w := range s.Windows {
		out.Windows = append(out.Windows, ui.TimeWindow{Days: w.Days, Start: w.Start, End: w.End})
	}
	return out, nil
}

// SetSchedule stores the schedule, keeping the alternative limit (a
// setting), and puts it in force at once. A change of the limit alone
// ("Slow" on or off) reaches the downloads and torrents under way through
// the one limiter they share: nothing stops. A change of the times (the
// windows, a pause of all) stops the run under way, its jobs queued with
// their progress, and starts again under the new schedule.
func (b *Backend) SetSchedule(s ui.Schedule) error {
	old, err := b.q.Schedule()
	if err != nil {
		return err
	}
	qs := queue.Schedule{PausedUntil: s.PausedUntil, AltSpeed: s.AltSpeed, AltLimit: old.AltLimit}
	for _, w := range s.Windows {
		qs.Windows = append(qs.Windows, queue.TimeWindow{Days: w.Days, Start: w.Start, End: w.End})
	}
	if err := b.q.SetSchedule(qs); err != nil {
		return err
	}
	if qs.PausedUntil.Equal(old.PausedUntil) && slices.EqualFunc(qs.Windows, old.Windows, sameWindow) {
		b.limitsChanged()
		return nil
	}
	b.rescheduled()
	return nil
}

func sameWindow(a, b queue.TimeWindow) bool {
	return a.Start == b.Start && a.End == b.End && slices.Equal(a.Days, b.Days)
}

// limitsChanged puts the download limit in force now (the setting, or the
// alternative limit while "Slow" is on) into the limiter every download
// and torrent takes from, so the ones under way slow down or speed up as
// they go; the next run's client is made under it.
func (b *Backend) limitsChanged() {
	var limit int64
	if s, err := b.q.Settings(); err == nil {
		limit = s.Client().Limit
	}
	if sched, err := b.q.Schedule(); err == nil {
		limit = sched.Limit(limit)
	}
	b.mu.Lock()
	b.client = nil
	b.mu.Unlock()
	b.downloads.SetRate(limit)
}

// rescheduled drops the client made under the old schedule and restarts
// the run under way, if any.
func (b *Backend) rescheduled() {
	b.mu.Lock()
	b.client = nil
	stop := b.stopRun
	b.mu.Unlock()
	if stop != nil {
		stop()
	}
	b.poke()
}

// waitSchedule waits until the schedule lets downloads run; false when
// the backend closes first. A changed schedule wakes it (SetSchedule
// pokes).
func (b *Backend) waitSchedule() bool {
	for {
		s, err := b.q.Schedule()
		now := time.Now()
		if err != nil || s.Allowed(now) {
			// A schedule that cannot be read does not stop downloads.
			return true
		}
		var at <-chan time.Time
		var t *time.Timer
		if next, ok := s.NextChange(now); ok {
			t = time.NewTimer(time.Until(next))
			at = t.C
		}
		select {
		case <-b.ctx.Done():
		case <-b.wake:
		case <-at:
		}
		if t != nil {
			t.Stop()
		}
		if b.ctx.Err() != nil {
			return false
		}
	}
}

// scheduledRun is the context of one run: it ends with the backend, or
// when the schedule's next change comes (the end of a time window), or
// when stop is called (a new limit). Only the backend's end pauses the
// jobs in hand; the others yield them back to the queue (runner.ErrYield).
func (b *Backend) scheduledRun() (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancelCause(b.ctx)
	stop = func() { cancel(runner.ErrYield) }
	s, err := b.q.Schedule()
	if err == nil {
		if next, ok := s.NextChange(time.Now()); ok {
			var end context.CancelFunc
			ctx, end = context.WithDeadlineCause(ctx, next, runner.ErrYield)
			return ctx, func() { stop(); end() }
		}
	}
	return ctx, stop
}
