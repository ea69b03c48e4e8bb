package remote

import (
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"braid/ui"
)

// An address is made a JSON-RPC URL, or refused in a sentence that hides
// a password in it.
func TestNormalize(t *testing.T) {
	for in, want := range map[string]string{
		"127.0.0.1:6800":                   "http://127.0.0.1:6800/jsonrpc",
		"http://nas.local:6800/":           "http://nas.local:6800/jsonrpc",
		"https://seedbox.example/rpc/json": "https://seedbox.example/rpc/json",
	} {
		if got, err := normalize(in); err != nil || got != want {
			t.Errorf("normalize(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	_, err := normalize("ftp://user:pa55word@host/")
	if err == nil || strings.Contains(err.Error(), "pa55word") || !strings.HasSuffix(err.Error(), ".") {
		t.Errorf("an ftp address: %v, want a sentence without the password", err)
	}
}

// A GID and the window's ID name the same download both ways, and paths
// of the daemon's machine are read whatever its separator.
func TestNames(t *testing.T) {
	for _, gid := range []string{"2089b05ecca3d829", "ffffffffffffffff", "0000000000000001"} {
		if got := GID(ID(gid)); got != gid {
			t.Errorf("GID(ID(%s)) = %s", gid, got)
		}
	}
	if ID("2089b05ecca3d829") == 0 {
		t.Error("a GID made the window's no-job ID 0")
	}
	for _, c := range []struct{ dir, p, rel string }{
		{"/srv/dl", "/srv/dl/a/b.iso", "a/b.iso"},
		{"/srv/dl/", "/srv/dl/b.iso", "b.iso"},
		{`D:\Downloads`, `D:\Downloads\sub\c.bin`, "sub/c.bin"},
		{"/srv/dl", "/srv/dlx/b.iso", ""},
	} {
		if rel, ok := under(c.dir, c.p); rel != c.rel || ok != (c.rel != "") {
			t.Errorf("under(%q, %q) = %q, %v; want %q", c.dir, c.p, rel, ok, c.rel)
		}
	}
	if base(`D:\Downloads\c.bin`) != "c.bin" || base("/srv/dl/a.iso") != "a.iso" {
		t.Error("base splits a path of the daemon's machine wrong")
	}
}

// A port nothing listens on, and a web server that is no JSON-RPC, are
// sentences naming the address, not an empty list; the secret is in
// neither.
func TestUnreachableAndNotRPC(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	b, err := New("http://"+addr+"/jsonrpc", "s3cret-here")
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	jobs, err := b.Jobs()
	var un *Unreachable
	want := "Cannot reach the downloads at http://" + addr + "/jsonrpc: nothing answers there."
	if jobs != nil || !errors.As(err, &un) || err.Error() != want {
		t.Errorf("nothing listening: %v, %v; want %q", jobs, err, want)
	}
	if got, _ := ui.Explain(err.Error()); got != want {
		t.Errorf("the window would say %q", got)
	}

	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte("<html>a router's login page</html>"))
	}))
	defer page.Close()
	p, err := New(page.URL, "s3cret-here")
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	_, err = p.Jobs()
	if err == nil || !strings.Contains(err.Error(), "something other than aria2's JSON-RPC") || strings.Contains(err.Error(), "s3cret-here") {
		t.Errorf("a web page: %v", err)
	}
	if err := p.Verify(1); err == nil || err.Error() != "The download runs on a remote aria2, which cannot verify files from here." {
		t.Errorf("Verify: %v", err)
	}
}

// aria2's connections of a link are to its servers: the row says peers
// and seeds of a torrent only.
func TestPeersOfTorrentsOnly(t *testing.T) {
	link := status{GID: "1", Status: "active", Connections: "2", NumSeeders: "1"}.job()
	if link.Peers != 0 || link.Seeds != 0 {
		t.Errorf("a link's row says %d peers, %d seeds", link.Peers, link.Seeds)
	}
	tor := status{GID: "2", Status: "active", Connections: "2", NumSeeders: "1", InfoHash: "ab"}.job()
	if tor.Peers != 2 || tor.Seeds != 1 || !tor.Torrent {
		t.Errorf("a torrent's row says %d peers, %d seeds (torrent %v)", tor.Peers, tor.Seeds, tor.Torrent)
	}
}

// TestListsADownloadThatMovesOn: a download the daemon starts while the
// window reads its lists one after another is listed once, as it is now,
// never left out: a row that vanished for one reading lost the window's
// selection, and the real-window test's Ctrl+P then paused nothing
// (TestRemoteWindow failed so once under load). A real daemon cannot be
// made to start a download exactly between two calls, so this one is a
// few lines of JSON-RPC whose download starts right after the first list
// is read.
func TestListsADownloadThatMovesOn(t *testing.T) {
	var mu sync.Mutex
	state, reads := "waiting", 0
	daemon := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var call struct {
			Method string `json:"method"`
		}
		if err := json.NewDecoder(r.Body).Decode(&call); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		mu.Lock()
		list := []map[string]string{}
		if map[string]string{"aria2.tellWaiting": "waiting", "aria2.tellActive": "active", "aria2.tellStopped": "complete"}[call.Method] == state {
			list = append(list, map[string]string{"gid": "00000000000000a1", "status": state, "totalLength": "100", "completedLength": "0"})
		}
		if strings.HasPrefix(call.Method, "aria2.tell") {
			reads++
			if reads == 1 {
				state = "active"
			}
		}
		mu.Unlock()
		_ = json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": "braid", "result": list})
	}))
	defer daemon.Close()
	b, err := New(daemon.URL, "")
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	jobs, err := b.Jobs()
	if err != nil {
		t.Fatal(err)
	}
	if len(jobs) != 1 || jobs[0].ID != ID("00000000000000a1") || jobs[0].State != ui.Running {
		t.Fatalf("a download that started while its lists were read is listed as %+v", jobs)
	}
}
