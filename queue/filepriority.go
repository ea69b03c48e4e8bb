package queue

import (
	"database/sql"
	"errors"
	"fmt"
)

// SetFileHigh marks file name of torrent job id as fetched before its
// other files (on) or like them (off), for the job's runs from now on.
func (q *Queue) SetFileHigh(id int64, name string, on bool) error {
	op := fmt.Sprintf("job %d: priority of %s", id, name)
	err := q.tx(func(tx *sql.Tx) error {
		res, err := tx.Exec(`UPDATE files SET high = ? WHERE job = ? AND name = ?`, on, id, name)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err == nil && n == 0 {
			return errNoFile
		}
		return nil
	})
	if errors.Is(err, errNoFile) {
		return fmt.Errorf("%s: %w", op, err)
	}
	if err != nil {
		return q.wrap(op, err)
	}
	return nil
}
