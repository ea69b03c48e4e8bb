package queue

import (
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"braid/engine/metalink"
	"braid/engine/netconf"
)

// Links that expire (issue 25). A signed CDN or cloud-storage link works
// for minutes or hours; when it answers 403 or 410 after it served the
// job, the job pauses in the "link expired" state (its reason starts with
// LinkExpiredPrefix) rather than failing, and Relink gives it a fresh
// link, its kept bytes staying. Telling an expired link from another
// refusal is the runner's (runner.LinkExpired).

// LinkExpiredPrefix starts the reason of a job paused because its link
// expired (the runner's LinkExpired): Job.LinkExpired tests for it, and
// --json shows it as the state "link expired".
const LinkExpiredPrefix = "link expired"

// LinkExpired reports whether the job is paused because its link expired.
func (j Job) LinkExpired() bool {
	return j.State == Paused && strings.HasPrefix(j.Error, LinkExpiredPrefix)
}

// ErrRelink is wrapped by the refusals of Relink: the new link does not
// serve the job's file. The job is left as it was.
var ErrRelink = errors.New("the new link cannot replace the old one")

// Relink gives file name of job id the link newURL in place of oldURL
// (a stored mirror URL; "" when the job has none to drop): the new link
// goes first, with no strikes; etag becomes the origin's ETag (the new
// link's, so the engine's If-Match agrees with it); a referer that was
// the old link becomes the new one. The job's network settings, if any,
// now belong to the new link's host as well. A job paused because its
// link expired is queued again. Checking that newURL serves the same file
// is the caller's (runner.Relink). The credentials newURL carries are kept
// for this process only, as Add keeps them.
func (q *Queue) Relink(id int64, name, oldURL, newURL, etag string) error {
	op := fmt.Sprintf("relink job %d", id)
	stored := Redact(newURL)
	err := q.tx(func(tx *sql.Tx) error {
		var state, errText, referer, source string
		if err := tx.QueryRow(`SELECT state, error, referer, source FROM jobs WHERE id = ?`, id).Scan(&state, &errText, &referer, &source); err != nil {
			if errors.Is(err, sql.ErrNoRows) {
				return ErrNotFound
			}
			return err
		}
		if State(state) == Running {
			return fmt.Errorf("%w: it is running; pause it first", ErrState)
		}
		if State(state) == Done {
			return fmt.Errorf("%w: it is done", ErrState)
		}
		var file int64
		if err := tx.QueryRow(`SELECT id FROM files WHERE job = ? AND name = ?`, id, name).Scan(&file); err != nil {
			return err
		}
		if oldURL != "" {
			if _, err := tx.Exec(`DELETE FROM mirrors WHERE file = ? AND url = ?`, file, oldURL); err != nil {
				return err
			}
		}
		if _, err := tx.Exec(`DELETE FROM mirrors WHERE file = ? AND url = ?`, file, stored); err != nil {
			return err
		}
		var best sql.NullInt64
		if err := tx.QueryRow(`SELECT MIN(priority) FROM mirrors WHERE file = ?`, file).Scan(&best); err != nil {
			return err
		}
		prio := int64(1)
		if best.Valid && best.Int64 < prio {
			prio = best.Int64
		}
		if _, err := tx.Exec(`INSERT INTO mirrors (file, url, priority) VALUES (?, ?, ?)`, file, stored, prio); err != nil {
			return err
		}
		if referer == Redact(oldURL) || referer == source {
			referer = stored
		}
		if _, err := tx.Exec(`UPDATE jobs SET origin_etag = ?, referer = ? WHERE id = ?`, etag, referer, id); err != nil {
			return err
		}
		if State(state) == Paused && strings.HasPrefix(errText, LinkExpiredPrefix) {
			if _, err := tx.Exec(`UPDATE jobs SET state = 'queued', error = '' WHERE id = ?`, id); err != nil {
				return err
			}
		}
		var js string
		switch err := tx.QueryRow(`SELECT settings FROM job_net WHERE job = ?`, id).Scan(&js); {
		case errors.Is(err, sql.ErrNoRows):
		case err != nil:
			return err
		default:
			var s netconf.Settings
			if err := json.Unmarshal([]byte(js), &s); err != nil {
				return err
			}
			s.Links = append(s.Links, stored)
			b, err := json.Marshal(s)
			if err != nil {
				return err
			}
			if _, err := tx.Exec(`UPDATE job_net SET settings = ? WHERE job = ?`, string(b), id); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		if errors.Is(err, ErrNotFound) || errors.Is(err, ErrState) {
			return fmt.Errorf("%s: %w", op, err)
		}
		return q.wrap(op, err)
	}
	q.logins.keep([]metalink.File{{URLs: []metalink.URL{{URL: newURL}}}})
	return nil
}
