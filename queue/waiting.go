package queue

import (
	"strings"
	"time"

	"braid/engine"
)

// noteWaiting keeps a running job's error column saying that its download
// waits for the network, and until when, so that `queue list` and the
// window show it; the note goes when the download goes on. It writes only
// when that changes, and returns the next try the note names (zero: no
// note). A failed
// write is retried at the next change: the note is for display only.
func (r *Runner) noteWaiting(id int64, s *engine.Snapshot, was time.Time) time.Time {
	var next time.Time
	if s.State == engine.StateWaiting {
		next = s.NextTry
		if next.IsZero() {
			next = time.Now()
		}
	}
	if next.Equal(was) {
		return was
	}
	note := ""
	if !next.IsZero() {
		note = waitingNote + next.Local().Format(waitingClock)
	}
	if _, err := r.Queue.db.Exec(`UPDATE jobs SET error = ? WHERE id = ? AND state = 'running'`, note, id); err != nil {
		return was
	}
	return next
}

// waitingNote and waitingClock make the note noteWaiting leaves.
const (
	waitingNote  = "waiting for the network, next try at "
	waitingClock = "15:04:05"
)

// Waiting reads the note a running job's error column holds while its
// download waits for the network (see noteWaiting), so that a display can
// show the job as waiting until the time it names rather than as an
// error; false when errText is not that note. The note names a clock time
// within the next hours: one more than twelve hours ago is tomorrow's.
func Waiting(errText string, now time.Time) (time.Time, bool) {
	clock, ok := strings.CutPrefix(errText, waitingNote)
	if !ok {
		return time.Time{}, false
	}
	at, err := time.ParseInLocation(waitingClock, clock, time.Local)
	if err != nil {
		return time.Time{}, false
	}
	now = now.Local()
	next := time.Date(now.Year(), now.Month(), now.Day(), at.Hour(), at.Minute(), at.Second(), 0, time.Local)
	if next.Before(now.Add(-12 * time.Hour)) {
		next = next.AddDate(0, 0, 1)
	}
	return next, true
}
