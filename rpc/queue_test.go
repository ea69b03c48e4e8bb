package rpc

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"braid/engine/mirrortest"
	"braid/engine/torrent/torrenttest"
	"braid/queue"
)

// waitStatus polls tellStatus until the download's status is want.
func (b *braid) waitStatus(t *testing.T, gid, want string) map[string]any {
	t.Helper()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(30 * time.Second)
	var last map[string]any
	for {
		last = b.call(t, "aria2.tellStatus", gid).(map[string]any)
		if last["status"] == want {
			return last
		}
		select {
		case <-tick.C:
		case <-deadline:
			t.Fatalf("%s: status %v, want %s: %v", gid, last["status"], want, last)
		}
	}
}

func meta4(name string, data []byte, urls ...string) string {
	sum := sha256.Sum256(data)
	var u strings.Builder
	for _, x := range urls {
		fmt.Fprintf(&u, "<url>%s</url>", x)
	}
	return fmt.Sprintf(`<?xml version="1.0" encoding="UTF-8"?>
<metalink xmlns="urn:ietf:params:xml:ns:metalink"><file name="%s"><size>%d</size>
<hash type="sha-256">%s</hash>%s</file></metalink>`, name, len(data), hex.EncodeToString(sum[:]), u.String())
}

func TestMetalinkVerified(t *testing.T) {
	t.Parallel()
	b := newBraid(t, Options{})
	data := mirrortest.Bytes(2<<20+17, 3)
	m := mirrortest.New(t, data)
	doc := meta4("doc.bin", data, m.URL())
	got := b.call(t, "aria2.addMetalink", base64.StdEncoding.EncodeToString([]byte(doc)), map[string]any{"dir": b.dir})
	gids, _ := got.([]any)
	if len(gids) != 1 {
		t.Fatalf("addMetalink answered %v, want one GID", got)
	}
	gid := gids[0].(string)
	st := b.waitStatus(t, gid, "complete")
	if st["braidChecked"] != "verified (sha-256)" {
		t.Errorf("braidChecked %v", st["braidChecked"])
	}
	files := st["files"].([]any)
	f := files[0].(map[string]any)
	if f["braidVerifiedBy"] != "sha-256" || f["path"] != filepath.Join(b.dir, "doc.bin") {
		t.Errorf("file %v", f)
	}
	n, _ := st["numPieces"].(string)
	bits, _ := st["bitfield"].(string)
	var pieces int
	fmt.Sscan(n, &pieces)
	raw, err := hex.DecodeString(bits)
	if err != nil || pieces == 0 || len(raw) != (pieces+7)/8 {
		t.Fatalf("numPieces %v bitfield %q", n, bits)
	}
	for i := range pieces {
		if raw[i/8]&(0x80>>(i%8)) == 0 {
			t.Fatalf("piece %d of a finished file is not set in %s", i, bits)
		}
	}
	on, err := os.ReadFile(filepath.Join(b.dir, "doc.bin"))
	if err != nil || !bytes.Equal(on, data) {
		t.Fatalf("the file on disk: %v", err)
	}
}

func TestGIDStableAcrossRestarts(t *testing.T) {
	t.Parallel()
	state, dir := t.TempDir(), t.TempDir()
	m := mirrortest.New(t, mirrortest.Bytes(1000, 1))
	b := openBraid(t, state, dir, Options{})
	gid := b.call(t, "aria2.addUri", []string{m.URL()}, map[string]any{"pause": "true"}).(string)
	b.close()

	b = openBraid(t, state, dir, Options{})
	st := b.call(t, "aria2.tellStatus", gid, []string{"gid", "status"}).(map[string]any)
	if st["gid"] != gid || st["status"] != "paused" {
		t.Fatalf("after a restart %s is %v", gid, st)
	}
	waiting := b.call(t, "aria2.tellWaiting", 0, 10, []string{"gid"}).([]any)
	if len(waiting) != 1 || waiting[0].(map[string]any)["gid"] != gid {
		t.Errorf("tellWaiting after a restart: %v", waiting)
	}

	// The job goes; SQLite gives its ID to the next job; the old GID must
	// not name the new job.
	b.call(t, "aria2.remove", gid)
	for start := time.Now().UnixMilli(); time.Now().UnixMilli() == start; {
		// the next job's added time must differ by a millisecond
		time.Sleep(time.Millisecond)
	}
	next := b.call(t, "aria2.addUri", []string{m.URL()}, map[string]any{"pause": "true"}).(string)
	if next[:8] != gid[:8] {
		t.Logf("the new job did not reuse the ID (%s after %s)", next, gid)
	}
	if next == gid {
		t.Fatalf("a new job got the removed job's GID %s", gid)
	}
	if msg := b.callErr(t, "aria2.tellStatus", gid); msg != "GID "+gid+" is not found" {
		t.Errorf("the removed GID: %q", msg)
	}
}

func TestRefusedOptions(t *testing.T) {
	t.Parallel()
	b := newBraid(t, Options{})
	m := mirrortest.New(t, mirrortest.Bytes(1000, 1))
	tests := []struct {
		name string
		opts map[string]any
		want string
	}{
		{"header without a colon", map[string]any{"header": []string{"session=hunter2"}}, "without a colon"},
		{"header the download sets", map[string]any{"header": []string{"Range: hunter2"}}, "set by the download"},
		{"unsafe out", map[string]any{"out": "../escape.bin"}, "out option"},
		{"pause not a boolean", map[string]any{"pause": "maybe"}, "pause must be"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			msg := b.callErr(t, "aria2.addUri", []string{m.URL()}, tc.opts)
			if !strings.Contains(msg, tc.want) || strings.Contains(msg, "hunter2") {
				t.Errorf("message %q, want one about %q without the cookie", msg, tc.want)
			}
		})
	}
	jobs, err := b.q.List()
	if err != nil || len(jobs) != 0 {
		t.Errorf("refused adds left %d jobs (%v)", len(jobs), err)
	}
	gid := b.call(t, "aria2.addUri", []string{m.URL()}, map[string]any{"pause": "true", "referer": "https://page.test/"}).(string)
	if msg := b.callErr(t, "aria2.changeOption", gid, map[string]any{"max-download-limit": "fast"}); !strings.Contains(msg, "is not a size") {
		t.Errorf("a per-download limit that is not a size: %q", msg)
	}
	if j, err := b.q.Get(1); err != nil || j.Origin.Referer != "https://page.test/" {
		t.Errorf("referer kept as %q (%v)", j.Origin.Referer, err)
	}
}

func TestCredentialsNotEchoed(t *testing.T) {
	t.Parallel()
	b := newBraid(t, Options{})
	// Nothing listens on port 1: the download is added, and waits for
	// the server; neither its status nor its reason shows the password.
	gid := b.call(t, "aria2.addUri", []string{"http://ann:pa55word@127.0.0.1:1/x.bin"}).(string)
	st := b.waitFor(t, gid, "a reason", func(st map[string]any) bool { return st["braidErrorDetail"] != nil })
	if raw, _ := json.Marshal(st); strings.Contains(string(raw), "pa55word") {
		t.Errorf("tellStatus shows the URL's password: %s", raw)
	}
}

func TestMirrorsOfOneFile(t *testing.T) {
	t.Parallel()
	b := newBraid(t, Options{})
	data := mirrortest.Bytes(4<<20, 5)
	m1, m2 := mirrortest.New(t, data), mirrortest.New(t, data, mirrortest.Path("/other.bin"))
	gid := b.call(t, "aria2.addUri", []string{m1.URL(), m2.URL()}, map[string]any{"out": "both.bin", "pause": "true"}).(string)
	uris := b.call(t, "aria2.getUris", gid).([]any)
	var got []string
	for _, u := range uris {
		got = append(got, u.(map[string]any)["uri"].(string))
	}
	if len(got) != 2 || !strings.Contains(strings.Join(got, " "), m2.URL()) {
		t.Errorf("getUris %v, want both mirrors", got)
	}
	b.call(t, "aria2.unpause", gid)
	b.waitStatus(t, gid, "complete")
	on, err := os.ReadFile(filepath.Join(b.dir, "both.bin"))
	if err != nil || !bytes.Equal(on, data) {
		t.Fatalf("both.bin: %v", err)
	}
	if m1.BytesServed() == 0 && m2.BytesServed() == 0 {
		t.Error("no mirror served a byte")
	}
}

// notifications reads a WebSocket until it has seen want for gid.
func notifications(t *testing.T, ws *websocket.Conn, gid string, want ...string) []string {
	t.Helper()
	var seen []string
	_ = ws.SetReadDeadline(time.Now().Add(30 * time.Second))
	for len(want) > 0 {
		_, msg, err := ws.ReadMessage()
		if err != nil {
			t.Fatalf("waiting for %v (seen %v): %v", want, seen, err)
		}
		var n struct {
			Method string           `json:"method"`
			Params []map[string]any `json:"params"`
		}
		if json.Unmarshal(msg, &n) != nil || n.Method == "" || len(n.Params) == 0 || n.Params[0]["gid"] != gid {
			continue
		}
		seen = append(seen, n.Method)
		if n.Method == want[0] {
			want = want[1:]
		}
	}
	return seen
}

func dial(t *testing.T, b *braid) *websocket.Conn {
	t.Helper()
	ws, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(b.http.URL, "http")+Path, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	return ws
}

func TestErrorNotification(t *testing.T) {
	t.Parallel()
	b := newBraid(t, Options{})
	ws := dial(t, b)
	data := mirrortest.Bytes(100000, 9)
	gone := mirrortest.New(t, data, mirrortest.Status(404))
	// A metalink names the file, so the job is added and fails when it
	// runs: its only mirror answers 404.
	doc := meta4("lost.bin", data, gone.URL())
	gid := b.call(t, "aria2.addMetalink", base64.StdEncoding.EncodeToString([]byte(doc))).([]any)[0].(string)
	notifications(t, ws, gid, "aria2.onDownloadError")
	st := b.waitStatus(t, gid, "error")
	if st["errorCode"] == "0" || st["errorMessage"] == nil || st["errorMessage"] == "" {
		t.Errorf("a failed download: errorCode %v errorMessage %v", st["errorCode"], st["errorMessage"])
	}
}

func TestWebSocketCalls(t *testing.T) {
	t.Parallel()
	b := newBraid(t, Options{})
	ws := dial(t, b)
	call := func(body string) map[string]any {
		if err := ws.WriteMessage(websocket.TextMessage, []byte(body)); err != nil {
			t.Fatal(err)
		}
		for {
			_ = ws.SetReadDeadline(time.Now().Add(10 * time.Second))
			_, msg, err := ws.ReadMessage()
			if err != nil {
				t.Fatal(err)
			}
			var m map[string]any
			if json.Unmarshal(msg, &m) == nil && m["id"] != nil {
				return m
			}
		}
	}
	if m := call(`{"jsonrpc":"2.0","id":"1","method":"aria2.getVersion","params":["token:nope"]}`); m["error"] == nil {
		t.Errorf("a wrong token over the WebSocket: %v", m)
	}
	if m := call(`{"jsonrpc":"2.0","id":"2","method":"aria2.getVersion","params":["token:` + b.secret + `"]}`); m["result"] == nil {
		t.Errorf("getVersion over the WebSocket: %v", m)
	}

	other := newBraid(t, Options{AllowOrigins: []string{"http://ariang.test"}})
	url := "ws" + strings.TrimPrefix(other.http.URL, "http") + Path
	if _, resp, err := websocket.DefaultDialer.Dial(url, map[string][]string{"Origin": {"http://evil.test"}}); err == nil || resp == nil || resp.StatusCode != 403 {
		t.Errorf("a WebSocket from another origin was not refused: %v", err)
	}
	ws2, _, err := websocket.DefaultDialer.Dial(url, map[string][]string{"Origin": {"http://ariang.test"}})
	if err != nil {
		t.Fatalf("a WebSocket from an allowed origin: %v", err)
	}
	ws2.Close()
}

func TestTorrent(t *testing.T) {
	t.Parallel()
	b := newBraid(t, Options{})
	src := t.TempDir()
	mi := torrenttest.Make(t, src, "album", 32<<10, []torrenttest.File{
		{Path: "one.bin", Data: mirrortest.Bytes(100000, 1)},
		{Path: "two.bin", Data: mirrortest.Bytes(50000, 2)},
	})
	mi.AnnounceList = [][]string{{"http://tracker.example/announce"}, {"udp://user:pass@backup.example:6969/announce"}}
	var buf bytes.Buffer
	if err := mi.Write(&buf); err != nil {
		t.Fatal(err)
	}
	gid := b.call(t, "aria2.addTorrent", base64.StdEncoding.EncodeToString(buf.Bytes()), []string{}, map[string]any{"pause": "true"}).(string)
	st := b.call(t, "aria2.tellStatus", gid).(map[string]any)
	info := mi.HashInfoBytes().HexString()
	bt, _ := st["bittorrent"].(map[string]any)
	if st["infoHash"] != info || bt == nil || bt["mode"] != "multi" || st["totalLength"] != "150000" {
		t.Errorf("tellStatus of a torrent: %v", st)
	}
	// aria2's announce list, tier by tier; a tracker's login is not told.
	if got := fmt.Sprint(bt["announceList"]); got != "[[http://tracker.example/announce] [udp://backup.example:6969/announce]]" {
		t.Errorf("bittorrent.announceList: %s", got)
	}
	files := b.call(t, "aria2.getFiles", gid).([]any)
	if len(files) != 2 || files[1].(map[string]any)["path"] != filepath.Join(b.dir, "album", "two.bin") {
		t.Errorf("getFiles of a torrent: %v", files)
	}
	if msg := b.callErr(t, "aria2.addTorrent", base64.StdEncoding.EncodeToString([]byte("not a torrent"))); !strings.Contains(msg, "torrent") {
		t.Errorf("bad torrent bytes: %q", msg)
	}
}

func TestTorrentFromWebSeed(t *testing.T) {
	t.Parallel()
	b := newBraid(t, Options{})
	// Only the web seed: no trackers, no DHT, on loopback.
	if err := b.q.UpdateSettings(func(s *queue.Settings) { s.Torrent.Discovery, s.Torrent.SeedRatio = false, 0 }); err != nil {
		t.Fatal(err)
	}
	src := t.TempDir()
	one := mirrortest.Bytes(300000, 11)
	mi := torrenttest.Make(t, src, "single.bin", 32<<10, []torrenttest.File{{Data: one}}, torrenttest.ServeDir(t, src)+"/")
	var buf bytes.Buffer
	if err := mi.Write(&buf); err != nil {
		t.Fatal(err)
	}
	ws := dial(t, b)
	gid := b.call(t, "aria2.addTorrent", base64.StdEncoding.EncodeToString(buf.Bytes())).(string)
	seen := notifications(t, ws, gid, "aria2.onBtDownloadComplete", "aria2.onDownloadComplete")
	st := b.waitStatus(t, gid, "complete")
	if st["completedLength"] != "300000" || st["infoHash"] != mi.HashInfoBytes().HexString() {
		t.Errorf("a finished torrent: %v (notifications %v)", st, seen)
	}
	on, err := os.ReadFile(filepath.Join(b.dir, "single.bin"))
	if err != nil || !bytes.Equal(on, one) {
		t.Fatalf("single.bin: %v", err)
	}
}

// TestSyncJobNotListed: a folder kept in sync is a job of the queue, but
// no aria2 download: the lists an aria2 client reads leave it out.
func TestSyncJobNotListed(t *testing.T) {
	t.Parallel()
	state, dir := t.TempDir(), t.TempDir()
	b := openBraid(t, state, dir, Options{})
	if _, err := b.q.Add(queue.NewJob{Sync: true, Source: "http://sync.example/", Dest: dir, Paused: true}); err != nil {
		t.Fatal(err)
	}
	m := mirrortest.New(t, mirrortest.Bytes(1000, 2))
	gid := b.call(t, "aria2.addUri", []string{m.URL()}, map[string]any{"pause": "true"}).(string)
	waiting := b.call(t, "aria2.tellWaiting", 0, 10, []string{"gid"}).([]any)
	if len(waiting) != 1 || waiting[0].(map[string]any)["gid"] != gid {
		t.Errorf("tellWaiting with a sync job in the queue: %v, want only %s", waiting, gid)
	}
}
