package queue

import (
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"

	"braid/engine/metalink"
)

// Reselect makes files the selected files of job id, as a source read
// again describes them (braid get resuming it): a file stored the same is
// selected as it is, with its recorded pieces; a new one is added, and one
// that differs (another size or hash, or origin names another ETag than
// the job's) is replaced with its pieces forgotten; the job's other files
// are unselected, or dropped (others). origin is what a plain link's
// server said now (zero for a metalink), kept with the job. The job's
// state is left as it is: whether its files may change now (not under
// another's run) is the caller's to know.
func (q *Queue) Reselect(id int64, files []metalink.File, origin Origin, others Others) error {
	var etag string
	var blob []byte
	err := q.db.QueryRow(`SELECT origin_etag, document FROM jobs WHERE id = ?`, id).Scan(&etag, &blob)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return fmt.Errorf("job %d: %w", id, ErrNotFound)
	case err != nil:
		return q.wrap(fmt.Sprintf("job %d", id), err)
	}
	var doc metalink.Document
	if err := json.Unmarshal(blob, &doc); err != nil {
		return q.wrap(fmt.Sprintf("job %d: stored document", id), err)
	}
	stored := make(map[string]metalink.File, len(doc.Files))
	for _, f := range doc.Files {
		stored[f.Name] = f
	}
	changed := etag != "" && origin.ETag != "" && etag != origin.ETag
	var same []string
	for _, f := range files {
		if old, ok := stored[f.Name]; ok && !changed && reflect.DeepEqual(old, storedFile(f)) {
			same = append(same, f.Name)
			continue
		}
		// New or different: the one-file path, rare on a resume.
		if err := q.PutFile(id, f, changed); err != nil {
			return err
		}
		same = append(same, f.Name)
	}
	if err := q.selectOnly(id, same, others == Drop); err != nil {
		return err
	}
	if _, err := q.db.Exec(`UPDATE jobs SET origin_etag = ?, referer = ? WHERE id = ?`, origin.ETag, Redact(origin.Referer), id); err != nil {
		return q.wrap(fmt.Sprintf("job %d: keep its origin", id), err)
	}
	return nil
}

// JobFor returns the newest job that records source downloading into
// dest, or into any folder when dest is ""; false when none does. Sources
// are compared in their canonical spelling (see canonical): a face asks
// it before adding a link a second time.
func (q *Queue) JobFor(source, dest string) (int64, bool, error) {
	query, args := `SELECT id FROM jobs WHERE source_key = ? ORDER BY id DESC LIMIT 1`, []any{canonical(source)}
	if dest != "" {
		abs, err := filepath.Abs(dest)
		if err != nil {
			return 0, false, fmt.Errorf("queue %s: destination %q: %w", Redact(source), dest, err)
		}
		query, args = `SELECT id FROM jobs WHERE source_key = ? AND dest = ? ORDER BY id DESC LIMIT 1`, append(args, abs)
	}
	var id int64
	err := q.db.QueryRow(query, args...).Scan(&id)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return 0, false, nil
	case err != nil:
		return 0, false, q.wrap("find job for "+Redact(source), err)
	}
	return id, true, nil
}

// Others says what Reselect does with the files of a job it is not given.
type Others uint8

const (
	// Unselect keeps them, and what they have, for a later selection (a
	// source read again with other filters).
	Unselect Others = iota
	// Drop forgets them: they stood for what the source turned out to
	// hold (the one file named after a link, or a magnet link's, until
	// the server or the metadata named the files).
	Drop
)

// selectOnly marks the named files of job id selected and its others not,
// or drops the others (from its files and its document) with drop, in
// one transaction.
func (q *Queue) selectOnly(id int64, names []string, drop bool) error {
	keep := make(map[string]bool, len(names))
	for _, n := range names {
		keep[n] = true
	}
	err := q.tx(func(tx *sql.Tx) error {
		if _, err := tx.Exec(`UPDATE files SET selected = 0 WHERE job = ?`, id); err != nil {
			return err
		}
		for _, n := range names {
			if _, err := tx.Exec(`UPDATE files SET selected = 1 WHERE job = ? AND name = ?`, id, n); err != nil {
				return err
			}
		}
		if !drop {
			return nil
		}
		if _, err := tx.Exec(`DELETE FROM files WHERE job = ? AND NOT selected`, id); err != nil {
			return err
		}
		doc, err := txDoc(tx, id)
		if err != nil {
			return err
		}
		doc.Files = slices.DeleteFunc(doc.Files, func(f metalink.File) bool { return !keep[f.Name] })
		return putDoc(tx, id, &doc)
	})
	if err != nil {
		return q.wrap(fmt.Sprintf("job %d: select %d files", id, len(names)), err)
	}
	return nil
}
