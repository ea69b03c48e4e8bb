package queue

import (
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"braid/engine/torrent"

	"github.com/anacrolix/torrent/metainfo"
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

// TorrentMap is what the queue knows of a torrent job's pieces without a
// runner holding it: the torrent's own layout, from the torrent stored
// with the job, and the pieces recorded verified in its folder. (The
// job's files carry a metalink layout of 1 MiB pieces, which is not the
// torrent's.)
type TorrentMap struct {
	Shape torrent.Shape
	Done  map[int]bool // piece index: recorded verified
}

// TorrentMap reads job j's torrent map; false when no torrent with its
// metadata is stored for j (a magnet whose metadata never came).
func (q *Queue) TorrentMap(j Job) (TorrentMap, bool, error) {
	spec, ok, err := q.TorrentSpec(j.ID)
	if err != nil || !ok {
		return TorrentMap{}, false, err
	}
	shape, known, err := spec.Shape()
	if err != nil || !known {
		return TorrentMap{}, false, err
	}
	tp, err := q.TorrentPieces(j.Dest)
	if err != nil {
		return TorrentMap{}, false, err
	}
	rec, err := tp.Load(spec.InfoHash.HexString())
	if err != nil {
		return TorrentMap{}, false, err
	}
	m := TorrentMap{Shape: shape, Done: map[int]bool{}}
	for i, ok := range rec {
		if ok {
			m.Done[i] = true
		}
	}
	return m, true, nil
}

// File returns the span of the named file, and false when the torrent
// has no such file.
func (m TorrentMap) File(name string) (torrent.FileSpan, bool) {
	for _, f := range m.Shape.Files {
		if f.Name == name {
			return f, true
		}
	}
	return torrent.FileSpan{}, false
}

// Count returns how many of the pieces holding bytes of the named files
// are recorded verified, and how many there are; a piece two files share
// counts once.
func (m TorrentMap) Count(names []string) (done, pieces int) {
	seen := map[int]bool{}
	for _, n := range names {
		f, ok := m.File(n)
		if !ok {
			continue
		}
		first, end := m.Shape.PiecesOf(f)
		for i := first; i < end; i++ {
			if seen[i] {
				continue
			}
			seen[i] = true
			pieces++
			if m.Done[i] {
				done++
			}
		}
	}
	return done, pieces
}

// TorrentJob returns the newest job that downloads or seeds the torrent
// with info hash ih, however it was added (a magnet, a .torrent file or
// URL): by the torrent stored with the job, else by its magnet source.
// One BitTorrent client runs a torrent once, so a second job of it could
// only fail.
func (q *Queue) TorrentJob(ih metainfo.Hash) (int64, bool, error) {
	found := int64(0)
	rows, err := q.db.Query(`SELECT job, spec FROM torrent_specs`)
	if err != nil {
		return 0, false, q.wrap("find the torrent "+ih.HexString(), err)
	}
	for rows.Next() {
		var id int64
		var b []byte
		if err := rows.Scan(&id, &b); err != nil {
			rows.Close()
			return 0, false, q.wrap("find the torrent "+ih.HexString(), err)
		}
		var spec struct{ InfoHash metainfo.Hash }
		if json.Unmarshal(b, &spec) == nil && spec.InfoHash == ih {
			found = max(found, id)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, false, q.wrap("find the torrent "+ih.HexString(), err)
	}
	// A magnet whose metadata never came has no torrent stored.
	rows, err = q.db.Query(`SELECT id, source FROM jobs WHERE source LIKE 'magnet:%'`)
	if err != nil {
		return 0, false, q.wrap("find the torrent "+ih.HexString(), err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var src string
		if err := rows.Scan(&id, &src); err != nil {
			return 0, false, q.wrap("find the torrent "+ih.HexString(), err)
		}
		if !strings.HasPrefix(strings.ToLower(src), "magnet:") {
			continue
		}
		if spec, err := torrent.ParseMagnet(src); err == nil && spec.InfoHash == ih {
			found = max(found, id)
		}
	}
	if err := rows.Err(); err != nil {
		return 0, false, q.wrap("find the torrent "+ih.HexString(), err)
	}
	return found, found != 0, nil
}
