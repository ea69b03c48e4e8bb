package queue

import (
	"testing"
	"time"

	"braid/queue/queuetest"
)

func TestScheduleAllowed(t *testing.T) {
	t.Parallel()
	// Monday 23 November 2026, local time.
	at := func(day, h, m int) time.Time { return time.Date(2026, 11, 23+day, h, m, 0, 0, time.Local) }
	night := TimeWindow{Start: 60, End: 7 * 60}                             // 01:00 to 07:00 every day
	late := TimeWindow{Start: 23 * 60, End: 6 * 60}                         // 23:00 to 06:00
	weekend := TimeWindow{Days: []time.Weekday{time.Saturday, time.Sunday}} // all day
	for _, tc := range []struct {
		name string
		s    Schedule
		t    time.Time
		want bool
	}{
		{"no windows", Schedule{}, at(0, 12, 0), true},
		{"inside", Schedule{Windows: []TimeWindow{night}}, at(0, 3, 30), true},
		{"at the start", Schedule{Windows: []TimeWindow{night}}, at(0, 1, 0), true},
		{"at the end", Schedule{Windows: []TimeWindow{night}}, at(0, 7, 0), false},
		{"outside", Schedule{Windows: []TimeWindow{night}}, at(0, 12, 0), false},
		{"past midnight, evening", Schedule{Windows: []TimeWindow{late}}, at(0, 23, 30), true},
		{"past midnight, morning", Schedule{Windows: []TimeWindow{late}}, at(1, 5, 59), true},
		{"past midnight, day", Schedule{Windows: []TimeWindow{late}}, at(1, 12, 0), false},
		{"weekend on Monday", Schedule{Windows: []TimeWindow{weekend}}, at(0, 12, 0), false},
		{"weekend on Saturday", Schedule{Windows: []TimeWindow{weekend}}, at(5, 12, 0), true},
		{"paused", Schedule{PausedUntil: at(0, 13, 0)}, at(0, 12, 0), false},
		{"pause over", Schedule{PausedUntil: at(0, 13, 0)}, at(0, 13, 0), true},
		{"paused in a window", Schedule{Windows: []TimeWindow{night}, PausedUntil: at(0, 4, 0)}, at(0, 3, 0), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.s.Allowed(tc.t); got != tc.want {
				t.Errorf("Allowed(%v) = %v, want %v", tc.t, got, tc.want)
			}
		})
	}

	s := Schedule{Windows: []TimeWindow{night}}
	if next, ok := s.NextChange(at(0, 12, 0)); !ok || !next.Equal(at(1, 1, 0)) {
		t.Errorf("next change after noon = %v %v, want 01:00 the next day", next, ok)
	}
	if next, ok := s.NextChange(at(0, 3, 0)); !ok || !next.Equal(at(0, 7, 0)) {
		t.Errorf("next change at 03:00 = %v %v, want 07:00", next, ok)
	}
	p := Schedule{PausedUntil: at(0, 13, 0)}
	if next, ok := p.NextChange(at(0, 12, 0)); !ok || !next.Equal(at(0, 13, 0)) {
		t.Errorf("next change of a pause = %v %v", next, ok)
	}
	if _, ok := (Schedule{}).NextChange(at(0, 12, 0)); ok {
		t.Error("a schedule without windows changes")
	}
	if got := (Schedule{AltSpeed: true, AltLimit: 100}).Limit(5000); got != 100 {
		t.Errorf("alternative limit = %d", got)
	}
	if got := (Schedule{AltLimit: 100}).Limit(5000); got != 5000 {
		t.Errorf("normal limit = %d", got)
	}
}

// TestSchedulePersists stores a schedule in a real database file and
// reads it back after the queue is closed and opened again.
func TestSchedulePersists(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	q, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	until := time.Date(2026, 11, 23, 18, 0, 0, 0, time.UTC)
	want := Schedule{
		Windows:     []TimeWindow{{Days: []time.Weekday{time.Monday}, Start: 60, End: 420}},
		PausedUntil: until,
		AltSpeed:    true,
		AltLimit:    64 << 10,
	}
	if st, err := q.Settings(); err != nil || st.Schedule.AltSpeed || len(st.Schedule.Windows) != 0 {
		t.Fatalf("a new queue's schedule: %+v, %v", st.Schedule, err)
	}
	if err := q.UpdateSettings(func(st *Settings) { st.Schedule = want }); err != nil {
		t.Fatal(err)
	}
	if err := q.UpdateSettings(func(st *Settings) { st.Schedule = Schedule{Windows: []TimeWindow{{Start: 2000}}} }); err == nil {
		t.Error("a window at minute 2000 was stored")
	}
	q.Close()

	q = queuetest.Open(t, Open, dir)
	st, err := q.Settings()
	got := st.Schedule
	if err != nil {
		t.Fatal(err)
	}
	if !got.PausedUntil.Equal(until) || !got.AltSpeed || got.AltLimit != want.AltLimit ||
		len(got.Windows) != 1 || got.Windows[0].Start != 60 || got.Windows[0].End != 420 || got.Windows[0].Days[0] != time.Monday {
		t.Errorf("read back %+v, want %+v", got, want)
	}
	// A value edited by hand into nonsense reads as no schedule.
	if err := q.setRaw(keySchedule, "{not json"); err != nil {
		t.Fatal(err)
	}
	if st, err := q.Settings(); err != nil || st.Schedule.AltSpeed || len(st.Schedule.Windows) != 0 {
		t.Errorf("a broken schedule reads as %+v, %v", st.Schedule, err)
	}
}
