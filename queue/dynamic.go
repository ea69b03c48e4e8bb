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

// Notice returns what the JobChange Notice recorded for job id, "" when nothing.
func (q *Queue) Notice(id int64) (string, error) {
	var n string
	if err := q.db.QueryRow(`SELECT notice FROM jobs WHERE id = ?`, id).Scan(&n); err != nil {
		return "", q.wrap(fmt.Sprintf("job %d: read its notice", id), err)
	}
	return n, nil
}
