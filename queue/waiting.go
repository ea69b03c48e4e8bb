package queue

import (
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
		note = "waiting for the network, next try at " + next.Local().Format("15:04:05")
	}
	if _, err := r.Queue.db.Exec(`UPDATE jobs SET error = ? WHERE id = ? AND state = 'running'`, note, id); err != nil {
		return was
	}
	return next
}
