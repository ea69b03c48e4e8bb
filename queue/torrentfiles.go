package queue

import (
	"database/sql"
	"errors"
	"fmt"
)

// ErrLastFile is returned by SetFileSelected rather than leave a job with
// no selected file.
var ErrLastFile = errors.New("at least one file must stay selected")

var errNoFile = errors.New("the job has no such file")

// SetFileSelected selects or deselects file name of job id, as a running
// torrent's "fetch"/"skip" does: the next run fetches the files selected.
// It leaves the job's state alone (the runner that runs it finishes it);
// it refuses to deselect the last selected file.
func (q *Queue) SetFileSelected(id int64, name string, on bool) error {
	op := fmt.Sprintf("job %d: select %s", id, name)
	if !on {
		op = fmt.Sprintf("job %d: skip %s", id, name)
	}
	err := q.tx(func(tx *sql.Tx) error {
		var was bool
		err := tx.QueryRow(`SELECT selected FROM files WHERE job = ? AND name = ?`, id, name).Scan(&was)
		if errors.Is(err, sql.ErrNoRows) {
			return errNoFile
		}
		if err != nil || was == on {
			return err
		}
		if !on {
			var left int
			if err := tx.QueryRow(`SELECT COUNT(*) FROM files WHERE job = ? AND selected AND name <> ?`, id, name).Scan(&left); err != nil {
				return err
			}
			if left == 0 {
				return ErrLastFile
			}
		}
		_, err = tx.Exec(`UPDATE files SET selected = ? WHERE job = ? AND name = ?`, on, id, name)
		return err
	})
	if err != nil {
		if errors.Is(err, ErrLastFile) || errors.Is(err, errNoFile) {
			return fmt.Errorf("%s: %w", op, err)
		}
		return q.wrap(op, err)
	}
	return nil
}
