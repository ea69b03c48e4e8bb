package bridge

import (
	"slices"

	"braid/queue"
	"braid/ui"
)

// Schedule returns the queue's schedule as the window edits it.
func (b *Backend) Schedule() (ui.Schedule, error) {
	st, err := b.q.Settings()
	s := st.Schedule
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
	var old, qs queue.Schedule
	err := b.q.UpdateSettings(func(st *queue.Settings) {
		old = st.Schedule
		qs = queue.Schedule{PausedUntil: s.PausedUntil, AltSpeed: s.AltSpeed, AltLimit: old.AltLimit}
		for _, w := range s.Windows {
			qs.Windows = append(qs.Windows, queue.TimeWindow{Days: w.Days, Start: w.Start, End: w.End})
		}
		st.Schedule = qs
	})
	if err != nil {
		return err
	}
	if qs.PausedUntil.Equal(old.PausedUntil) && slices.EqualFunc(qs.Windows, old.Windows, sameWindow) {
		b.svc.LimitsChanged()
		return nil
	}
	b.svc.Rescheduled()
	return nil
}

func sameWindow(a, b queue.TimeWindow) bool {
	return a.Start == b.Start && a.End == b.End && slices.Equal(a.Days, b.Days)
}
