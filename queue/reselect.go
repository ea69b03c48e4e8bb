package queue

import (
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"

	"braid/engine/metalink"
	"braid/engine/piece"
)

// PrepareFiles is braid get (runner.Get) starting files of source into
// dest, side by side: it finds the job for source and dest (adding one,
// or adding the files to it, as needed), marks it running, and returns
// its ID and, per file in order, the pieces recorded done (nil: start
// afresh; see RecordedPieces), which the runner checks against the .part
// on disk before the engine takes them. Pass q.Journal(id) as the
// engine's journal and call FinishFile when a download ends. A new job
// gets all the files in one transaction, so a metalink of thousands of
// files is queued at once rather than file by file (each of which would
// rewrite the job's stored document).
//
// doc is the document files come from: its own facts (where a fresh copy
// lives, whether it is dynamic) are stored with a new job, so that a
// later run refreshes it as get would; nil when there is none. origin is
// what a plain URL's server said (zero for a metalink), stored
// with the job so that a later run by the runner sends the same ETag and
// Referer. When a stored file differs from the one given (the document
// changed: another size or hash, or the origin now names another ETag),
// its recorded pieces are dropped. A job another Braid process is running
// is refused with ErrNotOwner. Sources are compared in their canonical
// spelling (see canonical): a relative and an absolute path to one
// metalink are one job.
func (q *Queue) PrepareFiles(source, dest string, doc *metalink.Document, files []metalink.File, origin Origin) (int64, []*piece.Bitfield, error) {
	abs, err := filepath.Abs(dest)
	if err != nil {
		return 0, nil, fmt.Errorf("queue %s: destination %q: %w", source, dest, err)
	}
	owner := q.TryOwn()
	var id int64
	var state, etag string
	var blob []byte
	err = q.db.QueryRow(`SELECT id, state, origin_etag, document FROM jobs WHERE source_key = ? AND dest = ? ORDER BY id DESC LIMIT 1`,
		canonical(source), abs).Scan(&id, &state, &etag, &blob)
	source = Redact(source)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		// A new job: it starts running, and nothing is recorded to resume.
		kept := metalink.Document{Version: 4}
		if doc != nil {
			kept = metalink.Document{Version: doc.Version, Generator: doc.Generator, Origin: doc.Origin, Dynamic: doc.Dynamic,
				Published: doc.Published, Updated: doc.Updated}
		}
		kept.Files = files
		if id, err = q.addJob(NewJob{Source: source, Dest: abs, Doc: &kept, Origin: origin}, Running); err != nil {
			return 0, nil, err
		}
		return id, make([]*piece.Bitfield, len(files)), nil
	case err != nil:
		return 0, nil, q.wrap("find job for "+source, err)
	case State(state) == Running && !owner:
		return 0, nil, fmt.Errorf("job %d for %s: %w", id, source, ErrNotOwner)
	default:
		var doc metalink.Document
		if err := json.Unmarshal(blob, &doc); err != nil {
			return 0, nil, q.wrap(fmt.Sprintf("job %d: stored document", id), err)
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
				return 0, nil, err
			}
		}
		if err := q.selectFiles(id, same); err != nil {
			return 0, nil, err
		}
	}
	if _, err := q.db.Exec(`UPDATE jobs SET state = 'running', error = '', finished_at = NULL, next_try = 0,
		origin_etag = ?, referer = ? WHERE id = ?`, origin.ETag, Redact(origin.Referer), id); err != nil {
		return 0, nil, q.wrap(fmt.Sprintf("start job %d", id), err)
	}
	fresh, err := q.freshFiles(id)
	if err != nil {
		return 0, nil, err
	}
	done := make([]*piece.Bitfield, len(files))
	for i, f := range files {
		if l, ok := fresh[f.Name]; ok && l == LayoutOf(f) && l.Size >= 0 {
			continue // nothing recorded, in the layout the engine will use
		}
		if done[i], err = q.RecordedPieces(id, f); err != nil {
			return 0, nil, err
		}
	}
	return id, done, nil
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

// freshFiles returns the layout of each file of job id that has no piece
// recorded, in one query: for those RecordedPieces has nothing to read.
func (q *Queue) freshFiles(id int64) (map[string]piece.Layout, error) {
	op := fmt.Sprintf("job %d: read pieces", id)
	rows, err := q.db.Query(`SELECT f.name, f.size, p.length, p.count, p.bits FROM files f JOIN pieces p ON p.file = f.id
		WHERE f.job = ?`, id)
	if err != nil {
		return nil, q.wrap(op, err)
	}
	defer rows.Close()
	out := map[string]piece.Layout{}
	for rows.Next() {
		var name string
		var l piece.Layout
		var n int
		var bits []byte
		if err := rows.Scan(&name, &l.Size, &l.Length, &n, &bits); err != nil {
			return nil, q.wrap(op, err)
		}
		if b, err := piece.UnmarshalBitfield(bits, n); err == nil && b.Count() == 0 && b.Len() == l.Count() {
			out[name] = l
		}
	}
	if err := rows.Err(); err != nil {
		return nil, q.wrap(op, err)
	}
	return out, nil
}

// selectFiles marks the named files of job id selected, in one
// transaction.
func (q *Queue) selectFiles(id int64, names []string) error {
	if len(names) == 0 {
		return nil
	}
	err := q.tx(func(tx *sql.Tx) error {
		for _, n := range names {
			if _, err := tx.Exec(`UPDATE files SET selected = 1 WHERE job = ? AND name = ?`, id, n); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return q.wrap(fmt.Sprintf("job %d: select %d files", id, len(names)), err)
	}
	return nil
}
