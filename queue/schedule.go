package queue

import (
	"encoding/json"
	"fmt"
	"slices"
	"time"
)

// Schedule says when downloads may run and how fast: time windows, a
// pause of everything until a moment, and the alternative speed limit.
// It is kept in the settings table, so the window and `braid queue run`
// share it; whoever runs the queue enforces it.
type Schedule struct {
	// Windows are the times downloads may run; none means any time.
	Windows []TimeWindow `json:"windows,omitempty"`
	// PausedUntil pauses every download until then; zero: not paused.
	PausedUntil time.Time `json:"paused_until,omitzero"`
	// AltSpeed puts AltLimit in force in place of the speed limit.
	AltSpeed bool `json:"alt_speed,omitempty"`
	// AltLimit is the alternative limit in bytes per second; 0: none.
	AltLimit int64 `json:"alt_limit,omitempty"`
}

// TimeWindow is a daily span of local time, from Start to End minutes
// after midnight; an End before Start runs past midnight (23:00 to
// 07:00). Days are the weekdays it starts on; none means every day.
type TimeWindow struct {
	Days  []time.Weekday `json:"days,omitempty"`
	Start int            `json:"start"`
	End   int            `json:"end"`
}

// keySchedule is the setting key of the schedule.
const keySchedule = "schedule"

const minutesPerDay = 24 * 60

// Contains reports whether t falls in the window.
func (w TimeWindow) Contains(t time.Time) bool {
	m := t.Hour()*60 + t.Minute()
	day := t.Weekday()
	on := func(d time.Weekday) bool { return len(w.Days) == 0 || slices.Contains(w.Days, d) }
	switch {
	case w.Start == w.End:
		return on(day) // the whole day
	case w.Start < w.End:
		return on(day) && m >= w.Start && m < w.End
	}
	// Past midnight: the evening part starts today, the morning part
	// started yesterday.
	return (on(day) && m >= w.Start) || (on((day+6)%7) && m < w.End)
}

// Allowed reports whether downloads may run at t.
func (s Schedule) Allowed(t time.Time) bool {
	if t.Before(s.PausedUntil) {
		return false
	}
	if len(s.Windows) == 0 {
		return true
	}
	for _, w := range s.Windows {
		if w.Contains(t) {
			return true
		}
	}
	return false
}

// NextChange is the first moment after t at which Allowed changes, and
// false when it never does (no windows and no pause ahead). Windows are
// in whole minutes, so it looks minute by minute, a week and a day
// ahead at most: ten thousand cheap checks.
func (s Schedule) NextChange(t time.Time) (time.Time, bool) {
	now := s.Allowed(t)
	if t.Before(s.PausedUntil) && len(s.Windows) == 0 {
		return s.PausedUntil, true
	}
	if len(s.Windows) == 0 {
		return time.Time{}, false
	}
	m := t.Truncate(time.Minute)
	for range 8 * minutesPerDay {
		m = m.Add(time.Minute)
		if t.Before(s.PausedUntil) && s.PausedUntil.Before(m) && s.Allowed(s.PausedUntil) != now {
			return s.PausedUntil, true
		}
		if s.Allowed(m) != now {
			return m, true
		}
	}
	return time.Time{}, false
}

// Limit is the speed limit in force: the alternative one when it is on.
func (s Schedule) Limit(normal int64) int64 {
	if s.AltSpeed {
		return s.AltLimit
	}
	return normal
}

// Validate refuses windows a person could not have meant.
func (s Schedule) Validate() error {
	for _, w := range s.Windows {
		if w.Start < 0 || w.Start >= minutesPerDay || w.End < 0 || w.End >= minutesPerDay {
			return fmt.Errorf("time window %d to %d: times are minutes after midnight, 0 to %d", w.Start, w.End, minutesPerDay-1)
		}
		for _, d := range w.Days {
			if d < time.Sunday || d > time.Saturday {
				return fmt.Errorf("time window: %d is not a weekday", d)
			}
		}
	}
	if s.AltLimit < 0 {
		return fmt.Errorf("alternative speed limit %d: below zero", s.AltLimit)
	}
	return nil
}

// scheduleOf reads a stored schedule; one that does not parse (edited by
// hand) reads as no schedule rather than stopping the queue.
func scheduleOf(raw string) Schedule {
	var s Schedule
	if raw == "" || json.Unmarshal([]byte(raw), &s) != nil || s.Validate() != nil {
		return Schedule{}
	}
	return s
}
