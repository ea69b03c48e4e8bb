package queue

import (
	"fmt"
	"time"
)

// RefreshAfter is how long a dynamic job (its document says its origin
// may hold a newer one) goes without asking that origin: a job that
// resumes later than this fetches its document again first.
var RefreshAfter = time.Hour

// RefreshDue reports whether job id's document was last fetched from its
// origin (or, never, the job added) more than RefreshAfter ago: whether a
// dynamic job that resumes now should ask its origin first.
func (q *Queue) RefreshDue(id int64) (bool, error) {
	var added, refreshed int64
	if err := q.db.QueryRow(`SELECT added_at, refreshed_at FROM jobs WHERE id = ?`, id).Scan(&added, &refreshed); err != nil {
		return false, q.wrap(fmt.Sprintf("job %d: when was it refreshed", id), err)
	}
	return time.Since(time.UnixMilli(max(added, refreshed))) >= RefreshAfter, nil
}

// MarkRefreshed records that job id's document was fetched from its
// origin just now.
func (q *Queue) MarkRefreshed(id int64) error {
	return q.exec(fmt.Sprintf("job %d: record its refresh", id),
		`UPDATE jobs SET refreshed_at = ? WHERE id = ?`, time.Now().UnixMilli(), id)
}

// SetNotice records something the user should hear about job id (a new
// version found at its origin), shown by `braid queue list` and the window
// until the next notice.
func (q *Queue) SetNotice(id int64, notice string) error {
	return q.exec(fmt.Sprintf("job %d: record a notice", id), `UPDATE jobs SET notice = ? WHERE id = ?`, notice, id)
}

// Notice returns what SetNotice recorded for job id, "" when nothing.
func (q *Queue) Notice(id int64) (string, error) {
	var n string
	if err := q.db.QueryRow(`SELECT notice FROM jobs WHERE id = ?`, id).Scan(&n); err != nil {
		return "", q.wrap(fmt.Sprintf("job %d: read its notice", id), err)
	}
	return n, nil
}
