package queue

import (
	"encoding/json"
	"strings"

	"github.com/anacrolix/torrent/metainfo"

	"braid/engine/torrent"
)

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
