package runner

import (
	"time"

	"braid/engine"
	"braid/queue"
)

// noteWaiting keeps a running job's next try in the queue while its
// download waits for the network, so that `queue list` and the window
// show it, and clears it when the download goes on. It writes only when
// that changes, and returns the next try it recorded (zero: none). A
// failed write is retried at the next change: the note is for display
// only.
func noteWaiting(q *queue.Queue, id int64, s *engine.Snapshot, was time.Time) time.Time {
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
	if err := q.SetWaiting(id, next, ""); err != nil {
		return was
	}
	return next
}
