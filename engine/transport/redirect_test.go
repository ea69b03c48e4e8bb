package transport_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"braid/engine/ftptest"
	"braid/engine/mirrortest"
	"braid/engine/transport"
	"braid/internal/testkit"
)

func readSpan(t *testing.T, src transport.Source, off, n int64) []byte {
	t.Helper()
	rc, err := src.ReadRange(context.Background(), off, n)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A MirrorBrain-style redirector sends Link and Digest on its 302: the
// probe reports them, the digest as the origin's, the links absolute; and
// the ranges after the first go straight to where the file was found.
func TestHTTPRedirectHeadersAndLocation(t *testing.T) {
	data := testkit.Data(256 << 10)
	sum := sha256.Sum256(data)
	digest := "SHA-256=" + base64.StdEncoding.EncodeToString(sum[:])
	other := sha256.Sum256([]byte("another file"))
	target := mirrortest.New(t, data, mirrortest.Addr("127.0.0.2"),
		mirrortest.Header("Digest", "SHA-256="+base64.StdEncoding.EncodeToString(other[:])))
	origin := mirrortest.New(t, data, mirrortest.Redirect(target.URL()),
		mirrortest.Header("Link", `</dup/data.bin>; rel=duplicate; pri=1`),
		mirrortest.Header("Digest", digest))
	src := newHTTP(t, origin.URL(), transport.Options{Size: int64(len(data))})
	p, err := src.Probe(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(p.OriginDigests) != 1 || p.OriginDigests[0].Type != "sha-256" {
		t.Fatalf("origin digests %+v, want the redirect's sha-256", p.OriginDigests)
	}
	if len(p.Digests) != 2 {
		t.Fatalf("digests %+v, want the redirect's and the final answer's, to compare", p.Digests)
	}
	if len(p.Links) != 1 || p.Links[0].URL != origin.URL()[:len(origin.URL())-len("/data.bin")]+"/dup/data.bin" {
		t.Fatalf("links %+v, want the redirect's duplicate made absolute", p.Links)
	}
	if p.URL != target.URL() {
		t.Fatalf("final URL %s, want %s", p.URL, target.URL())
	}
	for off := int64(0); off < int64(len(data)); off += 64 << 10 {
		if got := readSpan(t, src, off, 64<<10); !bytes.Equal(got, data[off:off+64<<10]) {
			t.Fatalf("bytes at %d differ", off)
		}
	}
	if n := origin.Requests(); n != 1 {
		t.Fatalf("the redirector was asked %d times; want once, then the file's location directly", n)
	}
}

// A remembered location that fails is forgotten: the next request asks
// the redirector again, which may send it elsewhere.
func TestHTTPRedirectLocationForgotten(t *testing.T) {
	data := testkit.Data(64 << 10)
	target := mirrortest.New(t, data, mirrortest.Addr("127.0.0.2"))
	origin := mirrortest.New(t, data, mirrortest.Redirect(target.URL()))
	src := newHTTP(t, origin.URL(), transport.Options{Size: int64(len(data))})
	readSpan(t, src, 0, 1024)
	target.Close()
	if _, err := src.ReadRange(context.Background(), 0, 1024); err == nil {
		t.Fatal("read from a closed mirror succeeded")
	}
	_, _ = src.ReadRange(context.Background(), 0, 1024)
	if n := origin.Requests(); n != 2 {
		t.Fatalf("the redirector was asked %d times; want again after its target failed", n)
	}
}

// An http URL that redirects to ftp:// is read over FTP.
func TestHTTPRedirectToFTP(t *testing.T) {
	data := testkit.Data(300 << 10)
	srv := ftptest.New(t, ftptest.File("pub/f.bin", data), ftptest.Anonymous())
	origin := mirrortest.New(t, data, mirrortest.Redirect(srv.URL("pub/f.bin")))
	src := newHTTP(t, origin.URL(), transport.Options{Size: int64(len(data))})
	defer src.Close()
	info, err := src.Stat(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if info.Size != int64(len(data)) {
		t.Fatalf("size %d, want %d", info.Size, len(data))
	}
	if got := readSpan(t, src, 1000, 200<<10); !bytes.Equal(got, data[1000:1000+200<<10]) {
		t.Fatal("bytes read over FTP differ")
	}
	if srv.BytesServed() == 0 {
		t.Fatal("the FTP server served nothing")
	}
	if n := origin.Requests(); n != 1 {
		t.Fatalf("the redirector was asked %d times, want once", n)
	}
}

// A file gone from where a redirector sent it is not the redirector's
// 404: the error is temporary, and the next request asks the redirector,
// which may know a better place.
func TestHTTPRedirectTargetGone(t *testing.T) {
	data := testkit.Data(64 << 10)
	var gone atomic.Bool
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if gone.Load() {
			http.NotFound(w, r)
			return
		}
		http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(data))
	}))
	defer target.Close()
	origin := mirrortest.New(t, data, mirrortest.Redirect(target.URL+"/f.bin"))
	src := newHTTP(t, origin.URL(), transport.Options{Size: int64(len(data))})
	readSpan(t, src, 0, 1024)
	gone.Store(true)
	_, err := src.ReadRange(context.Background(), 0, 1024)
	if err == nil || errors.Is(err, transport.ErrNotFound) {
		t.Fatalf("err = %v, want a temporary error", err)
	}
	if _, err := src.ReadRange(context.Background(), 0, 1024); !errors.Is(err, transport.ErrNotFound) {
		t.Fatalf("through the redirector again: err = %v, want ErrNotFound", err)
	}
	if n := origin.Requests(); n != 2 {
		t.Fatalf("the redirector was asked %d times, want again after its target lost the file", n)
	}
}
