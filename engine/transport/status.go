package transport

import (
	"errors"
	"net/http"
)

// StatusError is an HTTP answer that refuses a request for good, with its
// status: a caller that must tell one status from another (a signed link
// that expired answers 403 or 410 where it served before) finds it with
// errors.As rather than reading the text. It wraps the package's sentinel
// for the status: ErrNotFound for 404 and 410, ErrDenied for another 4xx.
type StatusError struct {
	Code   int    // the status code: 403, 404, 410, ...
	Status string // the status line as sent: "410 Gone"
	Err    error  // ErrNotFound or ErrDenied
}

// Error is the status and what it means: "410 Gone: mirror does not have
// the file". The wrapping error names the mirror and the range.
func (e *StatusError) Error() string { return e.Status + ": " + e.Err.Error() }

// Unwrap makes a StatusError match its sentinel with errors.Is.
func (e *StatusError) Unwrap() error { return e.Err }

// newStatusError is the StatusError of resp wrapping sentinel.
func newStatusError(resp *http.Response, sentinel error) *StatusError {
	status := resp.Status
	if status == "" {
		status = http.StatusText(resp.StatusCode)
	}
	return &StatusError{Code: resp.StatusCode, Status: status, Err: sentinel}
}

// StatusOf is the HTTP status code of the first StatusError in err's
// chain, 0 when it holds none (a network error, an error kept as text).
func StatusOf(err error) int {
	var se *StatusError
	if errors.As(err, &se) {
		return se.Code
	}
	return 0
}
