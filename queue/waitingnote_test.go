package queue

import (
	"testing"
	"time"
)

// Waiting reads back the note noteWaiting writes, and nothing else.
func TestWaitingReadsTheNote(t *testing.T) {
	now := time.Date(2026, 11, 23, 23, 59, 0, 0, time.Local)
	for _, tt := range []struct {
		next time.Time
	}{
		{now.Add(30 * time.Second)},
		{now.Add(5 * time.Minute)}, // past midnight: tomorrow
	} {
		note := waitingNote + tt.next.Format(waitingClock)
		got, ok := Waiting(note, now)
		if !ok || !got.Equal(tt.next.Truncate(time.Second)) {
			t.Errorf("Waiting(%q) = %v, %v; want %v", note, got, ok, tt.next)
		}
	}
	for _, s := range []string{"", "every mirror failed", waitingNote + "soon"} {
		if _, ok := Waiting(s, now); ok {
			t.Errorf("Waiting(%q) read a next try", s)
		}
	}
}
