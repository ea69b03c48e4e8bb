package queue

import (
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"braid/engine/metalink"
)

// SyncSet is what the queue remembers of one ResourceSync set of
// resources synced into a folder (braid sync).
type SyncSet struct {
	ID     int64
	Source string // the set's Capability List, or the list the user named
	Dest   string // absolute folder
	// At is the snapshot time of the Resource List of the last full sync;
	// Until the time the folder is in sync with (the Change Lists applied
	// up to there). Zero until a sync has completed.
	At, Until time.Time
	SyncedAt  time.Time // when the last complete sync ended; zero: never
	// Files are the files synced, by name: what a later run may delete
	// when the source deletes them.
	Files map[string]SyncedFile
}

// SyncedFile is one file a sync wrote and verified, or, Gone, deleted
// (the source deleted it, and so did the sync).
type SyncedFile struct {
	Name   string
	URL    string
	Size   int64
	Hashes []metalink.Hash
	Gone   bool
}

// kindSync is the kind column of a sync job (NewJob.Sync).
const kindSync = "sync"

// addSync adds the sync job of source into dest, or returns the one the
// queue has (the newest, when an older Braid left several). The source is
// stored without credentials; those it carries last for this process
// (Login), as a download's links' do.
func (q *Queue) addSync(source, dest string, state State) (int64, error) {
	shown := Redact(source)
	q.logins.keep([]metalink.File{{URLs: []metalink.URL{{URL: source}}}})
	abs, err := filepath.Abs(dest)
	if err != nil {
		return 0, fmt.Errorf("add sync %s: destination %q: %w", shown, dest, err)
	}
	var id int64
	err = q.tx(func(tx *sql.Tx) error {
		err := tx.QueryRow(`SELECT id FROM jobs WHERE kind = ? AND source_key = ? AND dest = ? ORDER BY id DESC LIMIT 1`,
			kindSync, canonical(source), abs).Scan(&id)
		if !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		id, err = insertSyncJob(tx, source, abs, state)
		return err
	})
	if err != nil {
		return 0, q.wrap("add sync "+shown, err)
	}
	return id, nil
}

// insertSyncJob adds a sync job of source into dest, last in the queue.
func insertSyncJob(tx *sql.Tx, source, dest string, state State) (int64, error) {
	res, err := tx.Exec(`
		INSERT INTO jobs (kind, source, source_key, dest, state, position, added_at, document)
		VALUES (?, ?, ?, ?, ?, (SELECT COALESCE(MAX(position), -1) + 1 FROM jobs), ?, '{}')`,
		kindSync, Redact(source), canonical(source), dest, string(state), time.Now().UnixMilli())
	if err != nil {
		return 0, err
	}
	return res.LastInsertId()
}

// SyncSet returns the record of source synced into dest, creating an
// empty one on the first sync, as a set of sync job job (0: of none, a
// folder only checked; a later sync job takes it).
func (q *Queue) SyncSet(job int64, source, dest string) (*SyncSet, error) {
	abs, err := filepath.Abs(dest)
	if err != nil {
		return nil, fmt.Errorf("sync %s: %w", Redact(source), err)
	}
	op := fmt.Sprintf("sync record of %s", Redact(source))
	owner := sql.NullInt64{Int64: job, Valid: job != 0}
	if _, err := q.db.Exec(`INSERT INTO sync_sets (source, dest, job) VALUES (?, ?, ?)
		ON CONFLICT DO UPDATE SET job = COALESCE(excluded.job, job)`, source, abs, owner); err != nil {
		return nil, q.wrap(op, err)
	}
	sets, err := q.syncSets(`source = ? AND dest = ?`, source, abs)
	if err != nil {
		return nil, q.wrap(op, err)
	}
	if len(sets) != 1 {
		return nil, fmt.Errorf("%s: %w", op, ErrNotFound)
	}
	return &sets[0], nil
}

// SyncSets are the sets sync job job keeps, with their files.
func (q *Queue) SyncSets(job int64) ([]SyncSet, error) {
	sets, err := q.syncSets(`job = ?`, job)
	return sets, q.wrapErr(fmt.Sprintf("sync sets of job %d", job), err)
}

// syncSets reads the sets where says, with their files.
func (q *Queue) syncSets(where string, args ...any) ([]SyncSet, error) {
	rows, err := q.db.Query(`SELECT id, source, dest, at, until, synced_at FROM sync_sets WHERE `+where+` ORDER BY id`, args...)
	if err != nil {
		return nil, err
	}
	var out []SyncSet
	for rows.Next() {
		s := SyncSet{Files: map[string]SyncedFile{}}
		var at, until, synced int64
		if err := rows.Scan(&s.ID, &s.Source, &s.Dest, &at, &until, &synced); err != nil {
			rows.Close()
			return nil, err
		}
		s.At, s.Until, s.SyncedAt = fromMS(at), fromMS(until), fromMS(synced)
		out = append(out, s)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for i := range out {
		if err := q.syncedFilesOf(&out[i]); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// syncedFilesOf reads the files of set s.
func (q *Queue) syncedFilesOf(s *SyncSet) error {
	rows, err := q.db.Query(`SELECT name, url, size, hashes FROM sync_files WHERE sync = ?`, s.ID)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var f SyncedFile
		var hashes string
		if err := rows.Scan(&f.Name, &f.URL, &f.Size, &hashes); err != nil {
			return err
		}
		if err := json.Unmarshal([]byte(hashes), &f.Hashes); err != nil {
			return fmt.Errorf("file %s: %w", f.Name, err)
		}
		s.Files[f.Name] = f
	}
	return rows.Err()
}

// SyncedFiles records that fs were written and verified in set id, and
// forgets those Gone, in one transaction: a sync of 100,000 files
// records them in batches, one commit (and one fsync) each, rather than
// one per file. Either every file of fs is recorded or none is.
func (q *Queue) SyncedFiles(id int64, fs []SyncedFile) error {
	if len(fs) == 0 {
		return nil
	}
	op := fmt.Sprintf("record synced file %s", fs[0].Name)
	if fs[0].Gone {
		op = fmt.Sprintf("forget synced file %s", fs[0].Name)
	}
	if len(fs) > 1 {
		op = fmt.Sprintf("record %d synced files", len(fs))
	}
	err := q.tx(func(tx *sql.Tx) error {
		st, err := tx.Prepare(`INSERT INTO sync_files (sync, name, url, size, hashes) VALUES (?, ?, ?, ?, ?)
			ON CONFLICT (sync, name) DO UPDATE SET url = excluded.url, size = excluded.size, hashes = excluded.hashes`)
		if err != nil {
			return err
		}
		defer st.Close()
		for _, f := range fs {
			if f.Gone {
				if _, err := tx.Exec(`DELETE FROM sync_files WHERE sync = ? AND name = ?`, id, f.Name); err != nil {
					return err
				}
				continue
			}
			hashes, err := json.Marshal(f.Hashes)
			if err != nil {
				return err
			}
			if _, err := st.Exec(id, f.Name, f.URL, f.Size, string(hashes)); err != nil {
				return err
			}
		}
		return nil
	})
	return q.wrapErr(op, err)
}

// SyncDone records that set id is now in sync with its source as of at
// (the Resource List's snapshot) and until (the changes applied).
// It keeps the count of the set's files and their bytes with it, for the
// job's row (Job.SyncFiles, Job.SyncBytes).
func (q *Queue) SyncDone(id int64, at, until time.Time) error {
	_, err := q.db.Exec(`UPDATE sync_sets SET at = ?, until = ?, synced_at = ?,
		files = (SELECT COUNT(*) FROM sync_files WHERE sync = ?), bytes = (SELECT COALESCE(SUM(size), 0) FROM sync_files WHERE sync = ?)
		WHERE id = ?`,
		toMS(at), toMS(until), time.Now().UnixMilli(), id, id, id)
	return q.wrapErr("record sync", err)
}

func toMS(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMilli()
}

func fromMS(ms int64) time.Time {
	if ms == 0 {
		return time.Time{}
	}
	return time.UnixMilli(ms).UTC()
}

// syncSums reads the files and bytes each sync job's sets held at their
// last complete sync, by job: job's alone, or every job's for 0.
func (q *Queue) syncSums(job int64) (map[int64][2]int64, error) {
	rows, err := q.db.Query(`SELECT job, SUM(files), SUM(bytes) FROM sync_sets
		WHERE job IS NOT NULL AND (? = 0 OR job = ?) GROUP BY job`, job, job)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[int64][2]int64{}
	for rows.Next() {
		var id, files, bytes int64
		if err := rows.Scan(&id, &files, &bytes); err != nil {
			return nil, err
		}
		out[id] = [2]int64{files, bytes}
	}
	return out, rows.Err()
}

// wrapErr is wrap for a result that may be nil.
func (q *Queue) wrapErr(op string, err error) error {
	if err == nil {
		return nil
	}
	return q.wrap(op, err)
}
