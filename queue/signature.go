package queue

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"

	"braid/engine/metalink"
	"braid/engine/signature"
)

// SetSignature records what checking the signature of job id's file name
// found, for `braid queue list` and the window. A zero Outcome clears it.
func (q *Queue) SetSignature(id int64, name string, o signature.Outcome) error {
	val := ""
	if o != (signature.Outcome{}) {
		b, err := json.Marshal(o)
		if err != nil {
			return fmt.Errorf("job %d: file %s: signature: %w", id, name, err)
		}
		val = string(b)
	}
	return q.exec(fmt.Sprintf("job %d: record the signature of %s", id, name),
		`UPDATE files SET signature = ? WHERE job = ? AND name = ?`, val, id, name)
}

// Signatures returns the recorded signature outcomes of job id's files by
// name; a file whose signature was never checked is absent.
func (q *Queue) Signatures(id int64) (map[string]signature.Outcome, error) {
	rows, err := q.db.Query(`SELECT name, signature FROM files WHERE job = ? AND signature != ''`, id)
	if err != nil {
		return nil, q.wrap(fmt.Sprintf("job %d: read signatures", id), err)
	}
	defer rows.Close()
	out := map[string]signature.Outcome{}
	for rows.Next() {
		var name string
		var val sql.NullString
		if err := rows.Scan(&name, &val); err != nil {
			return nil, q.wrap(fmt.Sprintf("job %d: read signatures", id), err)
		}
		var o signature.Outcome
		if err := json.Unmarshal([]byte(val.String), &o); err != nil {
			continue // written by a newer Braid in another shape: not shown
		}
		out[name] = o
	}
	if err := rows.Err(); err != nil {
		return nil, q.wrap(fmt.Sprintf("job %d: read signatures", id), err)
	}
	return out, nil
}

// Keyring is the user's keyring: the public keys the user trusts to sign
// downloads, kept in the state folder or, for the default one, in the
// system's settings folder (see keysDir).
func (q *Queue) Keyring() *signature.Keyring {
	return signature.OpenKeyring(keysDir(filepath.Dir(q.path)))
}

// SignatureCheck is the engine's Request.Check for job id's file f: it
// checks the signature f's document gives (if any) against the queue's
// keyring and records the outcome (see signature.Keyring.CheckFunc). It
// fails on a bad signature, and with require also unless a known key
// signed, so the file stays NAME.part.
func (q *Queue) SignatureCheck(id int64, f metalink.File, require bool) func(context.Context, io.Reader) error {
	return q.Keyring().CheckFunc(f.Signature, require, func(o signature.Outcome) error {
		return q.SetSignature(id, f.Name, o)
	})
}
