package queue

import (
	"encoding/json"

	"braid/engine/metalink"
)

// keyRequireSignature is the key of Settings.RequireSignature.
const keyRequireSignature = "require_signature"

// FileTrust is what vouches for one file of a job: its whole-file
// hashes and the outcome of its signature check (zero: not checked).
type FileTrust struct {
	Hashes    []metalink.Hash
	Signature Signature
}

// Trust returns, in one query, what vouches for the selected files of
// every finished job and of every job with a signature checked, by job
// and file name: what the window's list shows for a whole queue (List
// leaves hashes out).
func (q *Queue) Trust() (map[int64]map[string]FileTrust, error) {
	rows, err := q.db.Query(`SELECT f.job, f.name, f.hashes, f.signature FROM files f JOIN jobs j ON j.id = f.job
		WHERE f.selected AND (j.state = ? OR f.signature != '')`, string(Done))
	if err != nil {
		return nil, q.wrap("read what vouches for the jobs", err)
	}
	defer rows.Close()
	out := map[int64]map[string]FileTrust{}
	for rows.Next() {
		var id int64
		var name, hashes, sig string
		if err := rows.Scan(&id, &name, &hashes, &sig); err != nil {
			return nil, q.wrap("read what vouches for the jobs", err)
		}
		var ft FileTrust
		// A value written by a newer Braid in another shape is not shown.
		_ = json.Unmarshal([]byte(hashes), &ft.Hashes)
		if sig != "" {
			_ = json.Unmarshal([]byte(sig), &ft.Signature)
		}
		if out[id] == nil {
			out[id] = map[string]FileTrust{}
		}
		out[id][name] = ft
	}
	return out, q.wrapErr("read what vouches for the jobs", rows.Err())
}
