package queue

import (
	"errors"
	"fmt"
)

// ErrPaused: the job was paused while it ran, by the user or by Braid
// (the reason follows it in the error and is in the job's Error).
var ErrPaused = errors.New("job paused")

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
