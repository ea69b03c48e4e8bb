package queue

import (
	"database/sql"
	"encoding/json"
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

// SyncSet returns the record of source synced into dest, creating an
// empty one on the first sync.
func (q *Queue) SyncSet(source, dest string) (*SyncSet, error) {
	abs, err := filepath.Abs(dest)
	if err != nil {
		return nil, fmt.Errorf("sync %s: %w", Redact(source), err)
	}
	op := fmt.Sprintf("sync record of %s", Redact(source))
	if _, err := q.db.Exec(`INSERT INTO sync_sets (source, dest) VALUES (?, ?) ON CONFLICT DO NOTHING`, source, abs); err != nil {
		return nil, q.wrap(op, err)
	}
	s := &SyncSet{Source: source, Dest: abs, Files: map[string]SyncedFile{}}
	var at, until, synced int64
	if err := q.db.QueryRow(`SELECT id, at, until, synced_at FROM sync_sets WHERE source = ? AND dest = ?`, source, abs).
		Scan(&s.ID, &at, &until, &synced); err != nil {
		return nil, q.wrap(op, err)
	}
	s.At, s.Until, s.SyncedAt = fromMS(at), fromMS(until), fromMS(synced)
	rows, err := q.db.Query(`SELECT name, url, size, hashes FROM sync_files WHERE sync = ?`, s.ID)
	if err != nil {
		return nil, q.wrap(op, err)
	}
	defer rows.Close()
	for rows.Next() {
		var f SyncedFile
		var hashes string
		if err := rows.Scan(&f.Name, &f.URL, &f.Size, &hashes); err != nil {
			return nil, q.wrap(op, err)
		}
		if err := json.Unmarshal([]byte(hashes), &f.Hashes); err != nil {
			return nil, fmt.Errorf("%s: file %s: %w", op, f.Name, err)
		}
		s.Files[f.Name] = f
	}
	if err := rows.Err(); err != nil {
		return nil, q.wrap(op, err)
	}
	return s, nil
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
func (q *Queue) SyncDone(id int64, at, until time.Time) error {
	_, err := q.db.Exec(`UPDATE sync_sets SET at = ?, until = ?, synced_at = ? WHERE id = ?`,
		toMS(at), toMS(until), time.Now().UnixMilli(), id)
	return q.wrapErr("record sync", err)
}

// SyncSets lists the sets synced into folders, for the window's list.
func (q *Queue) SyncSets() ([]SyncSet, error) {
	rows, err := q.db.Query(`SELECT id, source, dest, at, until, synced_at FROM sync_sets ORDER BY id`)
	if err != nil {
		return nil, q.wrap("list syncs", err)
	}
	defer rows.Close()
	var out []SyncSet
	for rows.Next() {
		var s SyncSet
		var at, until, synced int64
		if err := rows.Scan(&s.ID, &s.Source, &s.Dest, &at, &until, &synced); err != nil {
			return nil, q.wrap("list syncs", err)
		}
		s.At, s.Until, s.SyncedAt = fromMS(at), fromMS(until), fromMS(synced)
		out = append(out, s)
	}
	return out, q.wrapErr("list syncs", rows.Err())
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

// wrapErr is wrap for a result that may be nil.
func (q *Queue) wrapErr(op string, err error) error {
	if err == nil {
		return nil
	}
	return q.wrap(op, err)
}

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
