package transport_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"braid/engine/transport"
)

// TestStatusError: a refusal carries its status as a typed error, found
// with errors.As through the wrapping that names the mirror, and still
// matches its sentinel; the text reads as before ("410 Gone: mirror does
// not have the file"). Errors without a status (a 401's LoginError, a
// 503's RetryError) have none.
func TestStatusError(t *testing.T) {
	for _, tc := range []struct {
		code     int
		sentinel error
		status   int // what StatusOf finds
	}{
		{http.StatusForbidden, transport.ErrDenied, 403},
		{http.StatusGone, transport.ErrNotFound, 410},
		{http.StatusNotFound, transport.ErrNotFound, 404},
		{http.StatusTeapot, transport.ErrDenied, 418},
		{http.StatusUnauthorized, transport.ErrDenied, 0},
	} {
		t.Run(http.StatusText(tc.code), func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if tc.code == http.StatusUnauthorized {
					w.Header().Set("WWW-Authenticate", `Basic realm="t"`)
				}
				w.WriteHeader(tc.code)
			}))
			defer srv.Close()
			src := newHTTP(t, srv.URL+"/f.bin", transport.Options{Size: 100})
			for what, call := range map[string]func() error{
				"ReadRange": func() error { _, err := src.ReadRange(context.Background(), 10, 20); return err },
				"Stat":      func() error { _, err := src.Stat(context.Background()); return err },
			} {
				err := call()
				if !errors.Is(err, tc.sentinel) {
					t.Fatalf("%s: %v does not match %v", what, err, tc.sentinel)
				}
				if got := transport.StatusOf(err); got != tc.status {
					t.Errorf("%s: StatusOf(%v) = %d, want %d", what, err, got, tc.status)
				}
				if tc.status != 0 && !strings.Contains(err.Error(), ": "+http.StatusText(tc.code)) && !strings.Contains(err.Error(), " "+http.StatusText(tc.code)+": ") {
					t.Errorf("%s: %q does not say the status", what, err)
				}
			}
		})
	}
	// Text alone carries no status: an error read back from a database.
	if got := transport.StatusOf(errors.New("http://h/f: 410 Gone: mirror does not have the file")); got != 0 {
		t.Errorf("StatusOf(text) = %d, want 0", got)
	}
}
