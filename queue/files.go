package queue

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"

	"braid/engine"
	"braid/engine/metalink"
)

// FinishFile records how a download that PrepareFiles started ended: err
// nil marks the file done (see Landed: snap is the download's last
// snapshot), and the job done when all its files are;
// an interruption (context canceled) pauses the job, so only another
// `braid get` or a resume continues it; a PauseError (the runner's for a
// missing, read-only or full destination, or an expired link) pauses it
// with its reason; any other error fails it, and
// engine.ErrHashMismatch also marks the file's Mismatch.
func (q *Queue) FinishFile(id int64, name string, snap *engine.Snapshot, cause error) error {
	var pe *pauseError
	if snap != nil && snap.SavedAs != "" && snap.SavedAs != name {
		// Where a renamed download's .part is, for the next run to resume.
		if err := q.exec(fmt.Sprintf("job %d file %s: record name on disk", id, name),
			`UPDATE files SET saved_as = ? WHERE job = ? AND name = ?`, snap.SavedAs, id, name); err != nil {
			return err
		}
	}
	switch {
	case cause == nil:
		if err := q.Landed(id, name, snap); err != nil {
			return err
		}
		return q.FinishIfComplete(id)
	case errors.Is(cause, context.Canceled):
		return q.Pause(id, "")
	default:
		if errors.As(cause, &pe) {
			return q.Pause(id, pe.reason)
		}
		if errors.Is(cause, engine.ErrHashMismatch) {
			if err := q.SetFile(id, name, Mismatched); err != nil {
				return errors.Join(q.Fail(id, cause), err)
			}
		}
		return q.Fail(id, cause)
	}
}

// FinishIfComplete marks job id done when every selected file of it is
// verified, and leaves it as it is otherwise; a job already done (by
// JournalBatch.FinishWhenLanded) costs no write.
func (q *Queue) FinishIfComplete(id int64) error {
	var left int
	if err := q.db.QueryRow(`SELECT COUNT(*) FROM files WHERE job = ? AND selected AND NOT verified`, id).Scan(&left); err != nil {
		return q.wrap(fmt.Sprintf("finish job %d", id), err)
	}
	if left > 0 {
		return nil
	}
	if s, err := q.StateOf(id); err == nil && s == Done {
		return nil
	}
	return q.Finish(id)
}

// PutFile makes f a selected file of job id: added when new, its mirrors
// refreshed (strikes kept) when the same, and replaced with its pieces
// forgotten when the document now says another size or hash, or changed
// says the content is another.
func (q *Queue) PutFile(id int64, f metalink.File, changed bool) error {
	op := fmt.Sprintf("job %d: store file %s", id, f.Name)
	q.logins.keep([]metalink.File{f})
	err := q.tx(func(tx *sql.Tx) error {
		var blob []byte
		if err := tx.QueryRow(`SELECT document FROM jobs WHERE id = ?`, id).Scan(&blob); err != nil {
			return err
		}
		var doc metalink.Document
		if err := json.Unmarshal(blob, &doc); err != nil {
			return fmt.Errorf("stored document: %w", err)
		}
		at := slices.IndexFunc(doc.Files, func(df metalink.File) bool { return df.Name == f.Name })
		if at < 0 {
			doc.Files = append(doc.Files, f)
		} else {
			old := doc.Files[at]
			doc.Files[at] = f
			if !changed && sameContent(old, f) {
				if err := replaceMirrors(tx, id, f); err != nil {
					return err
				}
				_, err := tx.Exec(`UPDATE files SET selected = 1 WHERE job = ? AND name = ?`, id, f.Name)
				if err != nil {
					return err
				}
				return putDoc(tx, id, &doc)
			}
			if _, err := tx.Exec(`DELETE FROM files WHERE job = ? AND name = ?`, id, f.Name); err != nil {
				return err
			}
		}
		var idx int
		if err := tx.QueryRow(`SELECT COALESCE(MAX(idx), -1) + 1 FROM files WHERE job = ?`, id).Scan(&idx); err != nil {
			return err
		}
		if err := insertFile(tx, id, idx, f, true); err != nil {
			return err
		}
		return putDoc(tx, id, &doc)
	})
	if err != nil {
		return q.wrap(op, err)
	}
	return nil
}

// sameContent reports whether two descriptions are of the same bytes, so
// that pieces recorded for one hold for the other.
func sameContent(a, b metalink.File) bool {
	return a.Size == b.Size && reflect.DeepEqual(a.Hashes, b.Hashes) && reflect.DeepEqual(a.Pieces, b.Pieces)
}

func replaceMirrors(tx *sql.Tx, id int64, f metalink.File) error {
	var fid int64
	if err := tx.QueryRow(`SELECT id FROM files WHERE job = ? AND name = ?`, id, f.Name).Scan(&fid); err != nil {
		return err
	}
	strikes := map[string]int{}
	rows, err := tx.Query(`SELECT url, strikes FROM mirrors WHERE file = ?`, fid)
	if err != nil {
		return err
	}
	for rows.Next() {
		var u string
		var n int
		if err := rows.Scan(&u, &n); err != nil {
			rows.Close()
			return err
		}
		strikes[u] = n
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if _, err := tx.Exec(`DELETE FROM mirrors WHERE file = ?`, fid); err != nil {
		return err
	}
	for _, u := range f.URLs {
		if _, err := tx.Exec(`INSERT INTO mirrors (file, url, location, priority, strikes) VALUES (?, ?, ?, ?, ?)`,
			fid, Redact(u.URL), u.Location, u.Priority, strikes[Redact(u.URL)]); err != nil {
			return err
		}
	}
	return nil
}

func putDoc(tx *sql.Tx, id int64, doc *metalink.Document) error {
	blob, err := json.Marshal(storedDoc(doc))
	if err != nil {
		return err
	}
	_, err = tx.Exec(`UPDATE jobs SET document = ? WHERE id = ?`, blob, id)
	return err
}
