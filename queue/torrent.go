package queue

import (
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"

	"braid/engine/torrent"
)

// TorrentPieces keeps the piece completion of the torrents downloaded into
// one folder (it implements engine/torrent.Completion). Its methods are
// safe for concurrent use.
type TorrentPieces struct {
	q   *Queue
	dir string
}

// TorrentPieces returns the piece completion of torrents in dir (made
// absolute, so one folder is one key however it was spelled).
func (q *Queue) TorrentPieces(dir string) (*TorrentPieces, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	return &TorrentPieces{q: q, dir: abs}, nil
}

// Load returns every piece recorded for the torrent.
func (p *TorrentPieces) Load(infoHash string) (map[int]bool, error) {
	rows, err := p.q.db.Query(`SELECT piece, complete FROM torrent_pieces WHERE dir = ? AND infohash = ?`, p.dir, infoHash)
	if err != nil {
		return nil, p.q.wrap("torrent "+infoHash+": load pieces", err)
	}
	defer rows.Close()
	out := map[int]bool{}
	for rows.Next() {
		var i int
		var ok bool
		if err := rows.Scan(&i, &ok); err != nil {
			return nil, err
		}
		out[i] = ok
	}
	return out, rows.Err()
}

// Set records the pieces of the torrent, in one transaction. The caller
// has synced their bytes.
func (p *TorrentPieces) Set(infoHash string, pieces []int, complete bool) error {
	err := p.q.tx(func(tx *sql.Tx) error {
		st, err := tx.Prepare(`INSERT INTO torrent_pieces (dir, infohash, piece, complete) VALUES (?, ?, ?, ?)
			ON CONFLICT (dir, infohash, piece) DO UPDATE SET complete = excluded.complete`)
		if err != nil {
			return err
		}
		defer st.Close()
		for _, i := range pieces {
			if _, err := st.Exec(p.dir, infoHash, i, complete); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return p.q.wrap(fmt.Sprintf("torrent %s: record %d pieces", infoHash, len(pieces)), err)
	}
	return nil
}

// Forget removes what is recorded for the torrent in this folder, for a
// job removed with its files.
func (p *TorrentPieces) Forget(infoHash string) error {
	err := p.q.tx(func(tx *sql.Tx) error {
		_, err := tx.Exec(`DELETE FROM torrent_pieces WHERE dir = ? AND infohash = ?`, p.dir, infoHash)
		return err
	})
	if err != nil {
		return p.q.wrap("torrent "+infoHash+": forget pieces", err)
	}
	return nil
}

// SetTorrentSpec stores the torrent job id was added from, as resolved:
// its runs use it instead of reading the source again (a .torrent file
// moved or deleted since, a magnet's metadata fetched from peers once).
// A later call replaces it, e.g. when a magnet's metadata has arrived.
func (q *Queue) SetTorrentSpec(id int64, spec *torrent.Spec) error {
	b, err := json.Marshal(spec)
	if err != nil {
		return fmt.Errorf("job %d: store its torrent: %w", id, err)
	}
	err = q.tx(func(tx *sql.Tx) error {
		_, err := tx.Exec(`INSERT INTO torrent_specs (job, spec) VALUES (?, ?)
			ON CONFLICT (job) DO UPDATE SET spec = excluded.spec`, id, b)
		return err
	})
	if err != nil {
		return q.wrap(fmt.Sprintf("job %d: store its torrent", id), err)
	}
	return nil
}

// TorrentSpec returns the torrent stored for job id by SetTorrentSpec;
// false when none is.
func (q *Queue) TorrentSpec(id int64) (*torrent.Spec, bool, error) {
	var b []byte
	err := q.db.QueryRow(`SELECT spec FROM torrent_specs WHERE job = ?`, id).Scan(&b)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, q.wrap(fmt.Sprintf("job %d: read its torrent", id), err)
	}
	var spec torrent.Spec
	if err := json.Unmarshal(b, &spec); err != nil {
		return nil, false, fmt.Errorf("job %d: read its stored torrent: %w", id, err)
	}
	return &spec, true, nil
}
