package torrent

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync/atomic"
	"testing"

	"braid/engine/mirrortest"
	"braid/engine/torrent/torrenttest"
)

// A magnet link's ws= web seed serves the data: the only peer (x.pe)
// knows the metadata and has no piece, so every byte must come from the
// mirror.
func TestMagnetWebSeed(t *testing.T) {
	t.Parallel()
	src := t.TempDir()
	data := randomBytes(t, 9*testPieceLen+77)
	m := mirrortest.New(t, data)
	mi := makeTorrent(t, src, "ws.bin", []testFile{{Path: "", Data: data}})
	peer := torrenttest.MetadataOnly(t, mi)

	link := "magnet:?xt=urn:btih:" + mi.HashInfoBytes().HexString() + "&dn=ws.bin&x.pe=" + peer + "&ws=" + url.QueryEscape(m.URL())
	spec, err := ParseMagnet(link)
	if err != nil {
		t.Fatal(err)
	}
	dest := t.TempDir()
	j, err := run(t, newTestClient(t), &Request{Dir: dest, Spec: spec})
	if err != nil {
		t.Fatal(err)
	}
	sameFile(t, dest, "ws.bin", data)
	allFromWebSeed(t, j, m, len(data))
}

// A multi-file torrent's ws= names the folder the torrent's name is
// appended to (BEP 19); given without its trailing slash it still serves.
func TestMagnetWebSeedMultiFile(t *testing.T) {
	t.Parallel()
	src := t.TempDir()
	a, b := randomBytes(t, 4*testPieceLen+3), randomBytes(t, 3*testPieceLen)
	mi := makeTorrent(t, src, "pack", []testFile{{Path: "a.bin", Data: a}, {Path: "sub/b.bin", Data: b}})
	var served atomic.Int64
	files := http.FileServer(http.Dir(src))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		files.ServeHTTP(countingWriter{w, &served}, r)
	}))
	t.Cleanup(srv.Close)
	peer := torrenttest.MetadataOnly(t, mi)

	link := "magnet:?xt=urn:btih:" + mi.HashInfoBytes().HexString() + "&x.pe=" + peer + "&ws=" + url.QueryEscape(srv.URL)
	spec, err := ParseMagnet(link)
	if err != nil {
		t.Fatal(err)
	}
	dest := t.TempDir()
	if _, err := run(t, newTestClient(t), &Request{Dir: dest, Spec: spec}); err != nil {
		t.Fatal(err)
	}
	sameFile(t, dest, "pack/a.bin", a)
	sameFile(t, dest, "pack/sub/b.bin", b)
	if n := served.Load(); n < int64(len(a)+len(b)) {
		t.Fatalf("the web seed served %d bytes of %d", n, len(a)+len(b))
	}
}

// countingWriter counts the body bytes a handler writes.
type countingWriter struct {
	http.ResponseWriter
	n *atomic.Int64
}

func (w countingWriter) Write(b []byte) (int, error) {
	n, err := w.ResponseWriter.Write(b)
	w.n.Add(int64(n))
	return n, err
}
