package queue

import (
	"errors"
	"fmt"
	"net/url"
	"strings"

	"braid/engine/metalink"
	"braid/engine/piece"
)

// ErrPaused: the job was paused while it ran, by the user or by Braid
// (the reason follows it in the error and is in the job's Error).
var ErrPaused = errors.New("job paused")

// The store's side of running a job: which job is next, which pieces are
// recorded done, and the pause errors that stop a job without failing it.
// The runner (package runner) drives them.

// NextQueued returns the first queued job, in queue order, that is not in skip.
func (q *Queue) NextQueued(skip map[int64]bool) (int64, bool, error) {
	rows, err := q.db.Query(`SELECT id FROM jobs WHERE state = 'queued' ORDER BY position, id LIMIT ?`, len(skip)+1)
	if err != nil {
		return 0, false, q.wrap("find the next job", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return 0, false, q.wrap("find the next job", err)
		}
		if !skip[id] {
			return id, true, nil
		}
	}
	if err := rows.Err(); err != nil {
		return 0, false, q.wrap("find the next job", err)
	}
	return 0, false, nil
}

// pauseError is a problem the user can fix outside Braid (a folder to plug
// back in, make writable or free, a link to renew): the job pauses rather
// than fails.
type pauseError struct {
	reason string
	err    error
}

func (e *pauseError) Error() string { return fmt.Sprintf("%v: %s", ErrPaused, e.reason) }

func (e *pauseError) Unwrap() []error { return []error{ErrPaused, e.err} }

// PauseError is the error that pauses a job rather than fail it: reason
// is what the job's Error says, for the user (PauseReason reads it back),
// and err the cause, which the error wraps with ErrPaused.
func PauseError(reason string, err error) error { return &pauseError{reason: reason, err: err} }

// RecordedPieces returns the pieces of job id's file f that the journal
// records done, in the layout the engine will use for f, or nil to start
// the file afresh: none recorded, or recorded in another layout or before
// f's size was known, when the record is reset to f's layout. Whether the
// .part on disk still holds them is the runner's to check.
func (q *Queue) RecordedPieces(id int64, f metalink.File) (*piece.Bitfield, error) {
	b, l, err := q.Pieces(id, f.Name)
	if err != nil {
		return nil, err
	}
	want := LayoutOf(f)
	if l.Size < 0 || want.Size < 0 || l != want || b.Len() != want.Count() {
		// Size unknown until a mirror says, or stored by another layout:
		// nothing recorded can be matched to the engine's pieces.
		if b.Count() > 0 || b.Len() != want.Count() || l != want {
			if err := q.resetFile(id, f.Name, want); err != nil {
				return nil, err
			}
		}
		return nil, nil
	}
	if b.Count() == 0 {
		return nil, nil
	}
	return b, nil
}

// HostOf is the host[:port] of a mirror URL in lower case, the key of the
// speed history; "" when the URL has none.
func HostOf(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return ""
	}
	return strings.ToLower(u.Host)
}

// PauseReason is the reason a job pauses for when err is a PauseError (a
// problem the user can fix outside Braid, such as the runner finds with a
// job's destination); false for any other error.
func PauseReason(err error) (string, bool) {
	var pe *pauseError
	if errors.As(err, &pe) {
		return pe.reason, true
	}
	return "", false
}
