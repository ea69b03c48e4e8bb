package queue

import (
	"braid/engine/metalink"
	"encoding/json"
)

// Signature is what checking the signature of a job's file found, as the
// queue stores it: the fields of the engine's signature.Outcome, its
// Status by name ("good", "unknown-key", "bad", "unreadable";
// "unchecked" or "" when nothing was checked). The queue only keeps it;
// the runner checks signatures and turns this record back into an
// Outcome (runner.Outcome). Its JSON is the Outcome's, so the rows
// written before the queue had its own type read the same.
type Signature struct {
	Status      string
	Fingerprint string
	Signer      string
	Note        string
}

// KeysDir is the folder that holds the user's trusted keys for the queue
// in state folder dir (q.Path's folder): the system's settings folder when
// dir is the default state folder (on Windows the keys roam with the user
// in %APPDATA%\Braid while the queue stays on the machine), else dir
// itself, so a state folder given with --state or BRAID_STATE holds
// everything of its own. The runner opens the keyring there
// (runner.Keyring).
func KeysDir(dir string) string {
	state, keys, err := defaultDirs()
	if err != nil || !samePath(dir, state) {
		return dir
	}
	return keys
}

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
