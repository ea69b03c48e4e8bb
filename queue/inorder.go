package queue

import (
	"database/sql"
	"errors"
	"fmt"
)

// A job in order has its files fetched from the front (engine.Request's
// and torrent.Request's InOrder), to be watched or read while they
// arrive. It is kept with the job, across restarts; a change reaches a
// running job when it next starts a file (or is paused and resumed).

// InOrder reports whether job id downloads in order.
func (q *Queue) InOrder(id int64) (bool, error) {
	var on bool
	err := q.db.QueryRow(`SELECT in_order FROM jobs WHERE id = ?`, id).Scan(&on)
	if errors.Is(err, sql.ErrNoRows) {
		return false, fmt.Errorf("job %d: %w", id, ErrNotFound)
	}
	if err != nil {
		return false, q.wrap(fmt.Sprintf("read whether job %d downloads in order", id), err)
	}
	return on, nil
}
