package queue

import (
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"strings"
	"syscall"

	"braid/engine/metalink"
	"braid/engine/piece"
)

// ErrPaused: the job was paused while it ran, by the user or by Braid
// (the reason follows it in the error and is in the job's Error).
var ErrPaused = errors.New("job paused")

// The store's side of running a job: which job is next, which pieces are
// recorded done, and how problems with the destination pause a job rather
// than fail it. The runner (package runner) drives them.

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
// back in, make writable or free): the job pauses rather than fails.
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

// PrepareDest makes sure the job's folder is there and writable. A folder
// that is missing is made for a job that has not started; for one with
// progress it is a vanished folder (an unplugged disk, say) and the job
// pauses rather than start over somewhere the user did not mean.
func PrepareDest(j Job) error {
	fi, err := os.Stat(j.Dest)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		for _, f := range j.Files {
			if f.Selected && (f.Done > 0 || f.Verified) {
				return &pauseError{fmt.Sprintf("the destination folder %s no longer exists", j.Dest), err}
			}
		}
		if err := os.MkdirAll(j.Dest, 0o755); err != nil {
			return DestProblem(j.Dest, err)
		}
	case err != nil:
		return DestProblem(j.Dest, err)
	case !fi.IsDir():
		return &pauseError{fmt.Sprintf("the destination %s is not a folder", j.Dest), fs.ErrInvalid}
	}
	// Permission bits do not tell (root, ACLs, a read-only mount): try.
	// A name of its own: jobs going to one folder start side by side.
	f, err := os.CreateTemp(j.Dest, ".braid-probe-*")
	if err != nil {
		return DestProblem(j.Dest, err)
	}
	f.Close()
	return os.Remove(f.Name())
}

// DestProblem turns a file-system error about the destination into the
// pause the user can act on, or returns it as it is.
func DestProblem(dest string, err error) error {
	switch {
	case errors.Is(err, fs.ErrPermission), errors.Is(err, syscall.EROFS):
		return &pauseError{fmt.Sprintf("the destination folder %s is read-only", dest), err}
	case errors.Is(err, syscall.ENOSPC):
		return &pauseError{fmt.Sprintf("the disk of %s is full", dest), err}
	case errors.Is(err, fs.ErrNotExist):
		if _, statErr := os.Stat(dest); errors.Is(statErr, fs.ErrNotExist) {
			return &pauseError{fmt.Sprintf("the destination folder %s no longer exists", dest), err}
		}
	}
	return err
}

// classify turns a download's error about the destination into a pause.
// The engine's errors already name the file.
func classify(dest string, err error) error { return DestProblem(dest, err) }

// PauseReason is the reason a job pauses for when err is a problem with
// its destination the user can fix outside Braid (see DestProblem and
// PrepareDest); false for any other error.
func PauseReason(err error) (string, bool) {
	var pe *pauseError
	if errors.As(err, &pe) {
		return pe.reason, true
	}
	return "", false
}
