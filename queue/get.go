package queue

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"

	"braid/engine"
	"braid/engine/metalink"
	"braid/engine/piece"
)

// Resolver reads a source into a document, the names of the files to
// download (nil: all) and, for a plain URL, what its server said (zero
// otherwise). GetOrAdd calls it only for a source not yet queued, so a
// queued download does not need its .meta4 any more.
type Resolver func() (doc *metalink.Document, selected []string, origin Origin, err error)

// GetOrAdd is what `braid get --state` does with a source: it returns the
// job for source going to dest (compared as an absolute path) ready to
// run, adding it with resolve's document when there is none. added says
// which. A paused or failed job is queued again; a done job whose files
// are all still at their final names is returned done (running it is a
// no-op), and one whose files went missing is queued to fetch them again.
// Sources are compared less URL credentials (see Redact).
func (q *Queue) GetOrAdd(source, dest string, resolve Resolver) (job Job, added bool, err error) {
	abs, err := filepath.Abs(dest)
	if err != nil {
		return Job{}, false, fmt.Errorf("queue %s: destination %q: %w", source, dest, err)
	}
	var id int64
	err = q.db.QueryRow(`SELECT id FROM jobs WHERE source = ? AND dest = ? ORDER BY id DESC LIMIT 1`,
		Redact(source), abs).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		doc, selected, origin, err := resolve()
		if err != nil {
			return Job{}, false, err
		}
		id, err := q.AddFrom(source, abs, doc, selected, origin)
		if err != nil {
			return Job{}, false, err
		}
		j, err := q.Get(id)
		return j, true, err
	}
	if err != nil {
		return Job{}, false, q.wrap("find job for "+source, err)
	}
	j, err := q.Get(id)
	if err != nil {
		return Job{}, false, err
	}
	switch j.State {
	case Paused, Failed:
		if err := q.Resume(id); err != nil {
			return Job{}, false, err
		}
	case Done:
		missing := false
		for _, f := range j.Files {
			if !f.Selected {
				continue
			}
			if _, err := os.Stat(filepath.Join(j.Dest, filepath.FromSlash(f.Name))); err == nil {
				continue
			}
			missing = true
			if err := q.SetVerified(id, f.Name, false); err != nil {
				return Job{}, false, err
			}
			if err := q.SetPieces(id, f.Name, piece.NewBitfield(f.Pieces)); err != nil {
				return Job{}, false, err
			}
		}
		if !missing {
			return j, false, nil
		}
		if err := q.SetState(id, Queued); err != nil {
			return Job{}, false, err
		}
	}
	j, err = q.Get(id)
	return j, false, err
}

// PrepareFile is `braid get --state` starting one file of source into
// dest: it finds the job for source and dest (adding one, or adding the
// file to it, as needed), marks it running, and returns its ID and the
// pieces the engine may take as done (nil: start afresh; see
// TrustedPieces). Pass q.Journal(id) as the engine's journal and call
// FinishFile when the download ends.
//
// origin is what a plain URL's server said (zero for a metalink), stored
// with the job so that a later run by the runner sends the same ETag and
// Referer. When the stored file differs from f (the document changed:
// another size or hash, or the origin now names another ETag), its
// recorded pieces are dropped. A job another Braid process is running is
// refused with ErrNotOwner. Sources are compared less URL credentials.
func (q *Queue) PrepareFile(ctx context.Context, source, dest string, f metalink.File, origin Origin) (int64, *piece.Bitfield, error) {
	id, done, err := q.PrepareFiles(ctx, source, dest, []metalink.File{f}, origin)
	if err != nil {
		return 0, nil, err
	}
	return id, done[0], nil
}

// FinishFile records how a download that PrepareFile started ended: err
// nil marks the file verified (and the job done when all its files are);
// an interruption (context canceled) pauses the job, so only another
// `braid get` or a resume continues it; a missing, read-only or full
// destination pauses it with the reason; any other error fails it, and
// engine.ErrHashMismatch also marks the file's Mismatch.
func (q *Queue) FinishFile(id int64, name string, cause error) error {
	var pe *pauseError
	switch {
	case cause == nil:
		if err := q.SetVerified(id, name, true); err != nil {
			return err
		}
		var left int
		if err := q.db.QueryRow(`SELECT COUNT(*) FROM files WHERE job = ? AND selected AND NOT verified`, id).Scan(&left); err != nil {
			return q.wrap(fmt.Sprintf("finish job %d", id), err)
		}
		if left > 0 {
			return nil
		}
		return q.Finish(id)
	case errors.Is(cause, context.Canceled):
		return q.Pause(id, "")
	default:
		j, err := q.Get(id)
		if err != nil {
			return err
		}
		if errors.As(classify(j.Dest, cause), &pe) {
			return q.Pause(id, pe.reason)
		}
		if errors.Is(cause, engine.ErrHashMismatch) {
			if err := q.SetMismatch(id, name, true); err != nil {
				return errors.Join(q.Fail(id, cause), err)
			}
		}
		return q.Fail(id, cause)
	}
}

// putFile makes f a selected file of job id: added when new, its mirrors
// refreshed (strikes kept) when the same, and replaced with its pieces
// forgotten when the document now says another size or hash, or changed
// says the content is another.
func (q *Queue) putFile(id int64, f metalink.File, changed bool) error {
	op := fmt.Sprintf("job %d: store file %s", id, f.Name)
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
			fid, u.URL, u.Location, u.Priority, strikes[u.URL]); err != nil {
			return err
		}
	}
	return nil
}

func putDoc(tx *sql.Tx, id int64, doc *metalink.Document) error {
	blob, err := json.Marshal(doc)
	if err != nil {
		return err
	}
	_, err = tx.Exec(`UPDATE jobs SET document = ? WHERE id = ?`, blob, id)
	return err
}
