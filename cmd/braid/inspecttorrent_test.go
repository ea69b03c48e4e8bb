package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"braid/engine/metalink"
	"braid/engine/mirrortest"
	"braid/engine/torrent/torrenttest"
)

// inspect reads a .torrent, the URL of one, and a magnet link: the info
// hash, trackers, web seeds, pieces and files, as text and as JSON; a
// file that is not a torrent gets a sentence naming it, not the bencode
// decoder's words alone.
func TestInspectTorrent(t *testing.T) {
	t.Parallel()
	data := mirrortest.Bytes(300<<10+5, 9)
	src := t.TempDir()
	files := []torrenttest.File{{Path: "a.bin", Data: data}, {Path: "docs/b.txt", Data: data[:1000]}}
	mi := torrenttest.Make(t, src, "pack", 64<<10, files, "http://seed.example/pack/")
	mi.AnnounceList = [][]string{{"http://tracker.example/announce"}, {"udp://backup.example:6969"}}
	tf := torrenttest.WriteFile(t, mi, "pack.torrent")
	ih := mi.HashInfoBytes().HexString()

	r := inspectJSON(t, metalink.Prefs{}, tf)
	if r.Kind != "torrent_file" || r.Torrent == nil || r.Selected != 2 || len(r.Files) != 2 {
		t.Fatalf("report %+v", r)
	}
	tor := r.Torrent
	wantPieces := (len(data) + 1000 + 64<<10 - 1) / (64 << 10)
	if tor.InfoHash != ih || tor.Name != "pack" || !tor.Metadata || tor.PieceLength != 64<<10 || tor.Pieces != wantPieces ||
		!slices.Equal(tor.Trackers, []string{"http://tracker.example/announce", "udp://backup.example:6969"}) ||
		!slices.Equal(tor.WebSeeds, []string{"http://seed.example/pack/"}) {
		t.Errorf("torrent %+v", tor)
	}
	if f := r.Files[0]; f.Name != "pack/a.bin" || f.Size != int64(len(data)) || !f.Selected {
		t.Errorf("file 0 %+v", f)
	}
	if f := r.Files[1]; f.Name != "pack/docs/b.txt" || f.Size != 1000 {
		t.Errorf("file 1 %+v", f)
	}

	code, out, errOut := inspectRun(t, metalink.Prefs{}, tf)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		"format     BitTorrent (.torrent), info hash " + ih,
		"trackers   http://tracker.example/announce",
		"           udp://backup.example:6969",
		"web seeds  http://seed.example/pack/",
		fmt.Sprintf("pieces     %d of 64.0 KiB (sha-1): every byte is checked against them", wantPieces),
		"[x] pack/docs/b.txt",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("text lacks %q:\n%s", want, out)
		}
	}

	// The same .torrent over HTTP.
	body, err := os.ReadFile(tf)
	if err != nil {
		t.Fatal(err)
	}
	web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/pack.torrent" {
			http.NotFound(w, r)
			return
		}
		w.Write(body)
	}))
	defer web.Close()
	if r := inspectJSON(t, metalink.Prefs{}, web.URL+"/pack.torrent"); r.Kind != "torrent_url" || r.Torrent.InfoHash != ih || len(r.Files) != 2 {
		t.Errorf("over HTTP: %+v", r)
	}

	// A magnet link: its files come later, from peers.
	magnet := fmt.Sprintf("magnet:?xt=urn:btih:%s&dn=pack&tr=%s&x.pe=127.0.0.1:6881", ih, url.QueryEscape("http://tracker.example/announce"))
	mr := inspectJSON(t, metalink.Prefs{}, magnet)
	if mr.Kind != "magnet" || mr.Torrent.Metadata || len(mr.Files) != 0 || mr.Torrent.Name != "pack" ||
		!slices.Equal(mr.Torrent.Peers, []string{"127.0.0.1:6881"}) {
		t.Errorf("magnet report %+v, torrent %+v", mr, mr.Torrent)
	}
	if _, out, _ := inspectRun(t, metalink.Prefs{}, magnet); !strings.Contains(out, "not known yet: a magnet link's files come with its metadata from peers") {
		t.Errorf("magnet text:\n%s", out)
	}

	// Not a torrent at all.
	bad := filepath.Join(t.TempDir(), "bad.torrent")
	if err := os.WriteFile(bad, []byte("<html>not found</html>"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut = inspectRun(t, metalink.Prefs{}, bad)
	if want := "braid inspect: " + bad + ": this is not a .torrent file ("; code != 1 || !strings.HasPrefix(errOut, want) {
		t.Errorf("exit %d, stderr %q; want 1 and %q", code, errOut, want)
	}
}
