package queue

import (
	"fmt"
	"time"
)

// SetWaiting records that running job id's downloads wait for the network
// until next (see Job.NextTry); a zero next says they go on. A job that is
// not running is left as it is.
func (q *Queue) SetWaiting(id int64, next time.Time) error {
	var ms int64
	if !next.IsZero() {
		ms = max(next.UnixMilli(), 1)
	}
	if _, err := q.db.Exec(`UPDATE jobs SET next_try = ? WHERE id = ? AND state = 'running'`, ms, id); err != nil {
		return q.wrap(fmt.Sprintf("job %d: record its next try", id), err)
	}
	return nil
}
