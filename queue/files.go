package queue

import (
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"

	"braid/engine"
	"braid/engine/metalink"
	"braid/engine/piece"
)

// PutFile makes f a selected file of job id: added when new, its mirrors
// refreshed (strikes kept) when the same, and replaced with its pieces
// forgotten when the document now says another size or hash, or changed
// says the content is another.
func (q *Queue) PutFile(id int64, f metalink.File, changed bool) error {
	op := fmt.Sprintf("job %d: store file %s", id, f.Name)
	q.logins.keep([]metalink.File{f})
	err := q.tx(func(tx *sql.Tx) error {
		doc, err := txDoc(tx, id)
		if err != nil {
			return err
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

// txDoc reads job id's stored document in tx.
func txDoc(tx *sql.Tx, id int64) (metalink.Document, error) {
	var blob []byte
	var doc metalink.Document
	if err := tx.QueryRow(`SELECT document FROM jobs WHERE id = ?`, id).Scan(&blob); err != nil {
		return doc, err
	}
	if err := json.Unmarshal(blob, &doc); err != nil {
		return doc, fmt.Errorf("stored document: %w", err)
	}
	return doc, nil
}

func putDoc(tx *sql.Tx, id int64, doc *metalink.Document) error {
	blob, err := json.Marshal(storedDoc(doc))
	if err != nil {
		return err
	}
	_, err = tx.Exec(`UPDATE jobs SET document = ? WHERE id = ?`, blob, id)
	return err
}

// RecordedPieces returns the pieces of job id's file f that the journal
// records done, in the layout the engine will use for f, or nil to start
// the file afresh: none recorded, or recorded in another layout or before
// f's size was known, when the record is reset to f's layout. Whether the
// .part on disk still holds them is the runner's to check.
func (q *Queue) RecordedPieces(id int64, f metalink.File) (*piece.Bitfield, error) {
	b, l, err := q.Pieces(id, f.Name)
	if err != nil {
		return nil, err
	}
	want := LayoutOf(f)
	if l.Size < 0 || want.Size < 0 || l != want || b.Len() != want.Count() {
		// Size unknown until a mirror says, or stored by another layout:
		// nothing recorded can be matched to the engine's pieces.
		if b.Count() > 0 || b.Len() != want.Count() || l != want {
			if err := q.resetFile(id, f.Name, want); err != nil {
				return nil, err
			}
		}
		return nil, nil
	}
	if b.Count() == 0 {
		return nil, nil
	}
	return b, nil
}

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

// Pieces returns the stored bitfield and layout of one file of a job.
func (q *Queue) Pieces(id int64, name string) (*piece.Bitfield, piece.Layout, error) {
	op := fmt.Sprintf("job %d file %s: read pieces", id, name)
	var l piece.Layout
	var n int
	var bits []byte
	err := q.db.QueryRow(`SELECT f.size, p.length, p.count, p.bits FROM files f JOIN pieces p ON p.file = f.id
		WHERE f.job = ? AND f.name = ?`, id, name).Scan(&l.Size, &l.Length, &n, &bits)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, piece.Layout{}, fmt.Errorf("%s: %w", op, ErrNotFound)
	}
	if err != nil {
		return nil, piece.Layout{}, q.wrap(op, err)
	}
	b, err := piece.UnmarshalBitfield(bits, n)
	if err != nil {
		return nil, piece.Layout{}, fmt.Errorf("%s: %w", op, err)
	}
	return b, l, nil
}

// SetPieces replaces the bitfield of one file: what the runner found it may
// trust of a .part, or an empty one to start the file again. b must have
// as many pieces as the file's layout, or the size must be unknown (-1).
func (q *Queue) SetPieces(id int64, name string, b *piece.Bitfield) error {
	op := fmt.Sprintf("job %d file %s: store pieces", id, name)
	bits, err := b.MarshalBinary()
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	err = q.tx(func(tx *sql.Tx) error {
		var fid, size int64
		var n int
		err := tx.QueryRow(`SELECT f.id, f.size, p.count FROM files f JOIN pieces p ON p.file = f.id
			WHERE f.job = ? AND f.name = ?`, id, name).Scan(&fid, &size, &n)
		if errors.Is(err, sql.ErrNoRows) {
			return ErrNotFound
		}
		if err != nil {
			return err
		}
		if size >= 0 && b.Len() != n {
			return fmt.Errorf("bitfield of %d pieces for a file of %d", b.Len(), n)
		}
		_, err = tx.Exec(`UPDATE pieces SET count = ?, bits = ?, kept = 0 WHERE file = ?`, b.Len(), bits, fid)
		return err
	})
	if err != nil {
		return q.wrap(op, err)
	}
	return nil
}

// resetFile gives a file a new layout with no piece done.
func (q *Queue) resetFile(id int64, name string, l piece.Layout) error {
	op := fmt.Sprintf("job %d file %s: reset pieces", id, name)
	bits, err := piece.NewBitfield(l.Count()).MarshalBinary()
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	err = q.tx(func(tx *sql.Tx) error {
		var fid int64
		err := tx.QueryRow(`SELECT id FROM files WHERE job = ? AND name = ?`, id, name).Scan(&fid)
		if errors.Is(err, sql.ErrNoRows) {
			return ErrNotFound
		}
		if err != nil {
			return err
		}
		if _, err := tx.Exec(`UPDATE files SET size = ?, verified = 0 WHERE id = ?`, l.Size, fid); err != nil {
			return err
		}
		_, err = tx.Exec(`UPDATE pieces SET length = ?, count = ?, bits = ?, kept = 0 WHERE file = ?`, l.Length, l.Count(), bits, fid)
		return err
	})
	if err != nil {
		return q.wrap(op, err)
	}
	return nil
}

// Landed records a file whose download is done, from the engine's last
// snapshot of it: verified, by which hash (if any), the name it is saved
// under and whether the download wrote it or found it there, proven.
func (q *Queue) Landed(id int64, name string, s *engine.Snapshot) error {
	if s == nil {
		return fmt.Errorf("job %d file %s: mark done: no snapshot of the download", id, name)
	}
	op := fmt.Sprintf("job %d file %s: mark done", id, name)
	found := false
	err := q.tx(func(tx *sql.Tx) (err error) {
		found, err = landed(tx, id, name, s)
		return err
	})
	if err != nil {
		return q.wrap(op, err)
	}
	if !found {
		return fmt.Errorf("%s: %w", op, ErrNotFound)
	}
	return nil
}

// landed records a file that landed (Landed), alone or in a batch's
// transaction, with the size its download learnt when the job was added
// before anyone said it (learnSize). It reports false when the job has no
// such file (removed meanwhile), which a batch shrugs off.
func landed(tx *sql.Tx, id int64, name string, s *engine.Snapshot) (bool, error) {
	res, err := tx.Exec(landedSQL, landedArgs(id, name, s)...)
	if err != nil {
		return false, err
	}
	if n, err := res.RowsAffected(); err == nil && n == 0 {
		return false, nil
	}
	return true, learnSize(tx, id, name, s.Size, s.PieceLength)
}

// learnSize records the size a mirror said of a file the queue knew no
// size of (-1: added before its server answered), and lays its pieces out
// as the download did: length is the engine's piece length (0: the one it
// takes for a file of that size without piece hashes). The bits the
// journal recorded while the size was unknown are the engine's piece
// indices, so they are kept, cut to the file's pieces. Without this the
// file's bytes stay counted in whole pieces of the stored length (a
// 200 KiB file done as 1 MiB), and a done file's size stays unknown to
// every face. A file whose size is known is left as it is.
func learnSize(tx *sql.Tx, id int64, name string, size, length int64) error {
	if size < 0 {
		return nil
	}
	var fid, stored int64
	var n int
	var bits []byte
	err := tx.QueryRow(`SELECT f.id, f.size, p.count, p.bits FROM files f JOIN pieces p ON p.file = f.id
		WHERE f.job = ? AND f.name = ?`, id, name).Scan(&fid, &stored, &n, &bits)
	if errors.Is(err, sql.ErrNoRows) {
		return ErrNotFound
	}
	if err != nil || stored >= 0 {
		return err
	}
	if length <= 0 {
		length = piece.PlanFor(metalink.File{Size: size}).Length
	}
	l := piece.Layout{Size: size, Length: length}
	old, err := piece.UnmarshalBitfield(bits, n)
	if err != nil {
		return err
	}
	b := piece.NewBitfield(l.Count())
	for i := range min(n, l.Count()) {
		if old.Has(i) {
			b.Set(i)
		}
	}
	if bits, err = b.MarshalBinary(); err != nil {
		return err
	}
	if _, err := tx.Exec(`UPDATE files SET size = ? WHERE id = ?`, size, fid); err != nil {
		return err
	}
	_, err = tx.Exec(`UPDATE pieces SET length = ?, count = ?, bits = ? WHERE file = ?`, l.Length, l.Count(), bits, fid)
	return err
}

// landedSQL and landedArgs mark a file that landed done (landed).
const landedSQL = `UPDATE files SET verified = 1, mismatch = 0, verified_by = ?, rebuilt = ?, saved_as = ?, created = ? WHERE job = ? AND name = ?`

func landedArgs(id int64, name string, s *engine.Snapshot) []any {
	saved := s.SavedAs
	if saved == name {
		saved = ""
	}
	return []any{s.VerifiedBy, s.Rebuilt, saved, s.Created, id, name}
}

// AddStrikes adds n strikes to a mirror of a file (pieces it sent that
// failed their hash), so a later run can order it last.
func (q *Queue) AddStrikes(id int64, name, mirrorURL string, n int) error {
	return q.exec(fmt.Sprintf("job %d file %s: strike mirror %s", id, name, mirrorURL),
		`UPDATE mirrors SET strikes = strikes + ? WHERE url = ? AND file = (SELECT id FROM files WHERE job = ? AND name = ?)`,
		n, Redact(mirrorURL), id, name)
}
