package queue

import "fmt"

// RemoveSyncSet forgets sync set id and what it synced, for the window's
// Remove; the folder's files stay. A later sync of the same source and
// folder starts afresh, comparing the folder with the Resource List.
func (q *Queue) RemoveSyncSet(id int64) error {
	op := fmt.Sprintf("remove sync %d", id)
	if _, err := q.db.Exec(`DELETE FROM sync_files WHERE sync = ?`, id); err != nil {
		return q.wrap(op, err)
	}
	_, err := q.db.Exec(`DELETE FROM sync_sets WHERE id = ?`, id)
	return q.wrapErr(op, err)
}
