package torrent

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"braid/engine/metalink"
)

// TestResolveErrorsNameNoSource: Resolve's errors leave the source to the
// caller, which names it once; FromMetalink names the metaurl once.
func TestResolveErrorsNameNoSource(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	link := srv.URL + "/gone.torrent"
	_, err := Resolve(context.Background(), link, nil)
	if err == nil || err.Error() != "the server answered 404 Not Found" {
		t.Errorf("a 404: %v", err)
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
