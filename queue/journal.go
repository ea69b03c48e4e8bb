package queue

import (
	"database/sql"
	"errors"
	"fmt"

	"braid/engine/piece"
)

// Journal records one job's durable progress into its files' bitfields.
// It implements engine.Journal. Its methods are safe for concurrent use.
type Journal struct {
	q   *Queue
	job int64
}

// Journal returns the journal of a job, for the engine to record pieces in.
func (q *Queue) Journal(job int64) *Journal { return &Journal{q: q, job: job} }

// PiecesDone records pieces of file as done, in one transaction: all of
// them or, on error, none. The engine calls it only after the pieces'
// bytes are synced, so what it records is on disk. A piece index outside
// the file is an error, unless the file's size is still unknown, when the
// bitfield grows to hold it.
func (j *Journal) PiecesDone(file string, pieces []int) error {
	if len(pieces) == 0 {
		return nil
	}
	err := j.q.tx(func(tx *sql.Tx) error { return recordPieces(tx, j.job, file, pieces) })
	if err != nil {
		return j.q.wrap(fmt.Sprintf("job %d file %s: record %d pieces", j.job, file, len(pieces)), err)
	}
	return nil
}

// recordPieces is PiecesDone inside a transaction.
func recordPieces(tx *sql.Tx, job int64, file string, pieces []int) error {
	var fid, size int64
	var n int
	var bits []byte
	err := tx.QueryRow(`SELECT f.id, f.size, p.count, p.bits FROM files f JOIN pieces p ON p.file = f.id
			WHERE f.job = ? AND f.name = ?`, job, file).Scan(&fid, &size, &n, &bits)
	if errors.Is(err, sql.ErrNoRows) {
		return ErrNotFound
	}
	if err != nil {
		return err
	}
	b, err := piece.UnmarshalBitfield(bits, n)
	if err != nil {
		return err
	}
	top := -1
	for _, i := range pieces {
		if i < 0 || (i >= n && size >= 0) {
			return fmt.Errorf("piece %d is outside the file's %d pieces", i, n)
		}
		top = max(top, i)
	}
	if top >= n {
		grown := piece.NewBitfield(top + 1)
		for i := range n {
			if b.Has(i) {
				grown.Set(i)
			}
		}
		b, n = grown, top+1
	}
	for _, i := range pieces {
		b.Set(i)
	}
	if bits, err = b.MarshalBinary(); err != nil {
		return err
	}
	_, err = tx.Exec(`UPDATE pieces SET count = ?, bits = ?, kept = 0 WHERE file = ?`, n, bits, fid)
	return err
}

// Reset forgets every piece of file recorded done: the engine found the
// finished file does not match its hash and fetches it all again.
func (j *Journal) Reset(file string) error {
	err := j.q.tx(func(tx *sql.Tx) error {
		var fid int64
		var n int
		err := tx.QueryRow(`SELECT f.id, p.count FROM files f JOIN pieces p ON p.file = f.id
			WHERE f.job = ? AND f.name = ?`, j.job, file).Scan(&fid, &n)
		if errors.Is(err, sql.ErrNoRows) {
			return ErrNotFound
		}
		if err != nil {
			return err
		}
		bits, err := piece.NewBitfield(n).MarshalBinary()
		if err != nil {
			return err
		}
		_, err = tx.Exec(`UPDATE pieces SET bits = ?, kept = 0 WHERE file = ?`, bits, fid)
		return err
	})
	if err != nil {
		return j.q.wrap(fmt.Sprintf("job %d file %s: reset pieces", j.job, file), err)
	}
	return nil
}

// KeptBytes records the bytes a stopped download keeps inside pieces of
// file it did not finish, for the job's progress; recording pieces or
// resetting them sets it back to 0. It implements engine.KeptJournal.
func (j *Journal) KeptBytes(file string, n int64) error {
	res, err := j.q.db.Exec(`UPDATE pieces SET kept = ? WHERE file = (SELECT id FROM files WHERE job = ? AND name = ?)`,
		max(n, 0), j.job, file)
	if err == nil {
		if k, rerr := res.RowsAffected(); rerr == nil && k == 0 {
			err = ErrNotFound
		}
	}
	if err != nil {
		return j.q.wrap(fmt.Sprintf("job %d file %s: record kept bytes", j.job, file), err)
	}
	return nil
}
