package queue

import (
	"database/sql"
	"fmt"
	"path/filepath"
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

// Set records piece i of the torrent. The caller has synced its bytes.
func (p *TorrentPieces) Set(infoHash string, i int, complete bool) error {
	err := p.q.tx(func(tx *sql.Tx) error {
		_, err := tx.Exec(`INSERT INTO torrent_pieces (dir, infohash, piece, complete) VALUES (?, ?, ?, ?)
			ON CONFLICT (dir, infohash, piece) DO UPDATE SET complete = excluded.complete`, p.dir, infoHash, i, complete)
		return err
	})
	if err != nil {
		return p.q.wrap(fmt.Sprintf("torrent %s: record piece %d", infoHash, i), err)
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
