package nativehost

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"braid/engine/netconf"
	"braid/engine/netconf/netconftest"
	"braid/queue"
)

var fixedTime = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// secret is a session cookie's value; it must not be written anywhere.
const secret = "s3ss10n-7f9c2a1b-do-not-store"

// loginServer serves a 4 KiB file, with ranges, only to a request with
// the session cookie and the browser's user agent; anything else gets the
// login page.
func loginServer(t *testing.T) (*httptest.Server, []byte) {
	srv, body, _ := loginServerReferers(t)
	return srv, body
}

// loginServerReferers is loginServer that also tells the Referer of the
// last request.
func loginServerReferers(t *testing.T) (*httptest.Server, []byte, func() string) {
	t.Helper()
	body := bytes.Repeat([]byte("braid-"), 700)[:4096]
	var mu sync.Mutex
	var referer string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		referer = r.Referer()
		mu.Unlock()
		c, err := r.Cookie("session")
		if err != nil || c.Value != secret || r.UserAgent() != "TestBrowser/1.0" {
			http.Error(w, "log in first", http.StatusForbidden)
			return
		}
		http.ServeContent(w, r, "report.pdf", fixedTime, bytes.NewReader(body))
	}))
	t.Cleanup(srv.Close)
	return srv, body, func() string {
		mu.Lock()
		defer mu.Unlock()
		return referer
	}
}

// call sends the messages to one Serve and returns its replies.
func call(t *testing.T, opts Options, msgs ...string) []map[string]any {
	t.Helper()
	var in, out bytes.Buffer
	for _, m := range msgs {
		in.Write(frame([]byte(m)))
	}
	if err := Serve(context.Background(), &in, &out, opts); err != nil {
		t.Fatalf("Serve: %v", err)
	}
	return replies(t, out.Bytes())
}

func TestAddWithCookiesThenList(t *testing.T) {
	t.Parallel()
	srv, body, referer := loginServerReferers(t)
	state, dl := t.TempDir(), t.TempDir()
	woken := 0
	opts := Options{StateDir: state, Dir: dl, Wake: func() { woken++ }}
	link := srv.URL + "/files/report.pdf?id=7"
	got := call(t, opts,
		`{"id":1,"type":"add","url":"`+link+`","referrer":"https://intranet.test/page#top","userAgent":"TestBrowser/1.0",
		  "cookies":[{"name":"session","value":"`+secret+`","path":"/","domain":"127.0.0.1"}]}`,
		`{"id":2,"type":"list"}`)
	if len(got) != 2 {
		t.Fatalf("replies %v", got)
	}
	add, list := got[0], got[1]
	if add["ok"] != true || add["job"] == nil {
		t.Fatalf("add: %v", add)
	}
	if add["name"] != "report.pdf" {
		t.Errorf("name %v, want report.pdf (read with the cookie, not the login page)", add["name"])
	}
	if w, _ := add["warning"].(string); w != "" && !strings.Contains(w, "keyring") {
		t.Errorf("a warning other than the keyring's: %v", add)
	}
	if got := referer(); got != "https://intranet.test/page" {
		t.Errorf("the link was read with Referer %q, want the page without its fragment", got)
	}
	if woken != 1 {
		t.Errorf("Wake called %d times, want 1", woken)
	}

	ds, _ := list["downloads"].([]any)
	if list["ok"] != true || len(ds) != 1 {
		t.Fatalf("list: %v", list)
	}
	d := ds[0].(map[string]any)
	if d["name"] != "report.pdf" || d["state"] != "queued" || d["size"] != float64(len(body)) || d["bytes"] != float64(0) {
		t.Errorf("listed %v", d)
	}

	q, err := queue.Open(state)
	if err != nil {
		t.Fatal(err)
	}
	j, err := q.Get(int64(add["job"].(float64)))
	if err != nil {
		t.Fatal(err)
	}
	if j.Dest != dl || j.State != queue.Queued || j.Origin.Referer != "https://intranet.test/page" {
		t.Errorf("job dest %q state %s referer %q", j.Dest, j.State, j.Origin.Referer)
	}
	if j.Source != link {
		t.Errorf("source %q, want %q", j.Source, link)
	}
	// The cookie and the user agent go with the job (the cookie as a
	// secret: the keyring, or this process's memory).
	net, ok, lost, err := q.Net(j.ID)
	if err != nil || !ok || lost || net.UserAgent != "TestBrowser/1.0" || len(net.Headers) != 1 || !strings.Contains(net.Headers[0], "session="+secret) {
		t.Errorf("the job's network settings: ok %v lost %v err %v, user agent %q, %d headers", ok, lost, err, net.UserAgent, len(net.Headers))
	}
	if err := q.Close(); err != nil {
		t.Fatal(err)
	}
	// The cookie is in no file of the state folder (the database, its
	// journal, the log).
	_ = filepath.WalkDir(state, func(p string, e os.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Error(err)
		}
		if bytes.Contains(b, []byte(secret)) {
			t.Errorf("%s holds the cookie", p)
		}
		return nil
	})
}

func TestAddWithoutLoginFailsWithoutCookieInError(t *testing.T) {
	t.Parallel()
	srv, _ := loginServer(t)
	state := t.TempDir()
	got := call(t, Options{StateDir: state, Dir: t.TempDir()},
		// A wrong cookie: the server says 403. The error names the
		// status, never the cookie.
		`{"id":1,"type":"add","url":"`+srv.URL+`/f.bin","userAgent":"TestBrowser/1.0","cookies":[{"name":"session","value":"wrong-`+secret+`"}]}`,
		`{"id":2,"type":"list"}`)
	if got[0]["ok"] != false {
		t.Fatalf("add behind a login without the cookie: %v", got[0])
	}
	msg := got[0]["error"].(string)
	if !strings.Contains(msg, "403") || strings.Contains(msg, secret) {
		t.Errorf("error %q: want the status, never the cookie", msg)
	}
	if ds, _ := got[1]["downloads"].([]any); got[1]["ok"] != true || len(ds) != 0 {
		t.Errorf("list after a failed add: %v", got[1])
	}
}

func TestAddFilenameAndQueueDefaultFolder(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.ServeContent(w, r, "x", fixedTime, strings.NewReader("hello"))
	}))
	defer srv.Close()
	state, dl := t.TempDir(), t.TempDir()
	q, err := queue.Open(state)
	if err != nil {
		t.Fatal(err)
	}
	if err := q.UpdateSettings(func(s *queue.Settings) { s.DownloadDir = dl }); err != nil {
		t.Fatal(err)
	}
	if err := q.Close(); err != nil {
		t.Fatal(err)
	}
	got := call(t, Options{StateDir: state},
		`{"type":"add","url":"`+srv.URL+`/download?id=3","filename":"C:\\Users\\ann\\Downloads\\notes.txt"}`,
		`{"type":"add","url":"`+srv.URL+`/download?id=4","filename":".."}`)
	if got[0]["ok"] != true || got[0]["name"] != "notes.txt" {
		t.Errorf("add with the browser's file name: %v", got[0])
	}
	if got[1]["ok"] != false || !strings.Contains(got[1]["error"].(string), "..") {
		t.Errorf("add with an unsafe file name: %v", got[1])
	}
	q, err = queue.Open(state)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	jobs, err := q.List()
	// notes.txt is a document: it goes to that category's folder in the
	// queue's download folder, as from the window.
	if want := filepath.Join(dl, "Documents"); err != nil || len(jobs) != 1 || jobs[0].Dest != want {
		t.Errorf("jobs %v (%v), want one in %s", jobs, err, want)
	}
}

// TestAddThroughTheStoredProxy: with no Braid running, the host reads a
// link as the window would: through the proxy stored in its settings.
func TestAddThroughTheStoredProxy(t *testing.T) {
	t.Parallel()
	proxy := netconftest.Tinyproxy(t, "", "")
	origin := netconftest.ProxiedOnly(t, map[string][]byte{"f.bin": []byte("only through the proxy")})
	state := t.TempDir()
	q, err := queue.Open(state)
	if err != nil {
		t.Fatal(err)
	}
	if err := q.UpdateSettings(func(s *queue.Settings) {
		s.Proxy = queue.Proxy{Mode: netconf.ProxyManual.String(), URL: proxy}
	}); err != nil {
		t.Fatal(err)
	}
	if err := q.Close(); err != nil {
		t.Fatal(err)
	}
	got := call(t, Options{StateDir: state, Dir: t.TempDir()}, `{"type":"add","url":"`+origin.URL+`/p/f.bin"}`)
	if got[0]["ok"] != true || got[0]["name"] != "f.bin" {
		t.Errorf("add of a link only the stored proxy reaches: %v", got[0])
	}
}
