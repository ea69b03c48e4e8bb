package queue

import (
	"encoding/json"
	"strconv"

	"braid/engine/signature"
)

// keyRequireSignature is the setting behind Runner.RequireSignature for
// the window's runs.
const keyRequireSignature = "require_signature"

// RequireSignature reports whether the user asked that every download be
// signed by a key of the keyring (the window's setting).
func (q *Queue) RequireSignature() (bool, error) {
	raw, ok, err := q.Setting(keyRequireSignature)
	if err != nil || !ok {
		return false, err
	}
	on, _ := strconv.ParseBool(raw)
	return on, nil
}

// SetRequireSignature stores the window's "require a signature" setting.
func (q *Queue) SetRequireSignature(on bool) error {
	return q.SetSetting(keyRequireSignature, strconv.FormatBool(on))
}

// AllSignatures returns the recorded signature outcomes of every job, by
// job and file name, in one query: what the window's list shows for a
// whole queue. Jobs with none are absent.
func (q *Queue) AllSignatures() (map[int64]map[string]signature.Outcome, error) {
	rows, err := q.db.Query(`SELECT job, name, signature FROM files WHERE signature != ''`)
	if err != nil {
		return nil, q.wrap("read signatures", err)
	}
	defer rows.Close()
	out := map[int64]map[string]signature.Outcome{}
	for rows.Next() {
		var id int64
		var name, val string
		if err := rows.Scan(&id, &name, &val); err != nil {
			return nil, q.wrap("read signatures", err)
		}
		var o signature.Outcome
		if json.Unmarshal([]byte(val), &o) != nil {
			continue // written by a newer Braid in another shape: not shown
		}
		if out[id] == nil {
			out[id] = map[string]signature.Outcome{}
		}
		out[id][name] = o
	}
	return out, q.wrapErr("read signatures", rows.Err())
}
