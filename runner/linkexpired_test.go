package runner

import (
	"errors"
	"fmt"
	"testing"

	"braid/engine"
	"braid/engine/transport"
)

// TestLinkExpiredByStatus: a link counts as expired by the transport's
// typed status (403 or 410 after it served), never by an error's text.
func TestLinkExpiredByStatus(t *testing.T) {
	t.Parallel()
	status := func(code int, status string, sentinel error) error {
		return fmt.Errorf("http://cdn/f.bin: bytes 0-99: %w", &transport.StatusError{Code: code, Status: status, Err: sentinel})
	}
	for _, tc := range []struct {
		name   string
		err    error
		worked bool
		want   bool
	}{
		{"403 after it served", status(403, "403 Forbidden", transport.ErrDenied), true, true},
		{"410 after it served", status(410, "410 Gone", transport.ErrNotFound), true, true},
		{"403 joined with another mirror's error", errors.Join(engine.ErrNoMirrors, status(403, "403 Forbidden", transport.ErrDenied)), true, true},
		{"403 before it served", status(403, "403 Forbidden", transport.ErrDenied), false, false},
		{"404", status(404, "404 Not Found", transport.ErrNotFound), true, false},
		{"a login asked for", fmt.Errorf("http://cdn/f.bin: %w", &transport.LoginError{Detail: "401 Unauthorized"}), true, false},
		{"the status only in the text", fmt.Errorf("http://cdn/f.bin: 403 Forbidden: %w", transport.ErrDenied), true, false},
		{"no error", nil, true, false},
	} {
		if got := linkExpired(tc.err, tc.worked); got != tc.want {
			t.Errorf("%s: linkExpired = %v, want %v", tc.name, got, tc.want)
		}
	}
}
