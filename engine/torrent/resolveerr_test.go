package torrent

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"braid/engine/metalink"
	"braid/engine/transport"
)

// TestResolveErrorsNameNoSource: Resolve's errors leave the source to the
// caller, which names it once; FromMetalink names the metaurl once.
func TestResolveErrorsNameNoSource(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	link := srv.URL + "/gone.torrent"
	_, err := Resolve(context.Background(), link, nil)
	if err == nil || err.Error() != "404 Not Found: the server does not have the file" || !errors.Is(err, transport.ErrNotFound) {
		t.Errorf("a 404: %v", err)
	}
	// A login asked for is a LoginError, which the faces offer to give.
	locked := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("WWW-Authenticate", `Basic realm="t"`)
		http.Error(w, "log in", http.StatusUnauthorized)
	}))
	defer locked.Close()
	_, err = Resolve(context.Background(), locked.URL+"/x.torrent", nil)
	if le := (*transport.LoginError)(nil); !errors.As(err, &le) || le.Refused || err.Error() != "the server asks for a login (401 Unauthorized)" {
		t.Errorf("a 401: %v", err)
	}
	_, err = Resolve(context.Background(), "http://127.0.0.1:1/x.torrent", nil)
	if err == nil || strings.Contains(err.Error(), "x.torrent") {
		t.Errorf("a refused connection: %v", err)
	}
	_, err = FromMetalink(context.Background(), metalink.File{Name: "f", MetaURLs: []metalink.MetaURL{{URL: link, MediaType: "torrent"}}}, nil)
	if err == nil || strings.Count(err.Error(), link) != 1 {
		t.Errorf("a metaurl's 404: %v", err)
	}
}
