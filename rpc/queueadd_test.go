package rpc

import (
	"bytes"
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"braid/engine/mirrortest"
	"braid/engine/netconf/netconftest"
	"braid/engine/torrent/torrenttest"
	"braid/internal/testkit"
	"braid/queue"
)

// lastJob is the job added last to b's queue.
func (b *braid) lastJob(t *testing.T) queue.Job {
	t.Helper()
	jobs, err := b.q.List()
	if err != nil || len(jobs) == 0 {
		t.Fatalf("queue: %v (%v)", jobs, err)
	}
	j, err := b.q.Get(jobs[len(jobs)-1].ID)
	if err != nil {
		t.Fatal(err)
	}
	return j
}

// addMetalink takes addUri's options: a metalink whose mirror is behind
// nginx's cookie-guarded place, added paused with the Cookie header, a
// user agent, a referrer and a name of its own, keeps them with the job
// across a restart of Braid; unpaused, the file lands under that name,
// verified by the metalink's SHA-256, and nginx saw the user agent and
// the referrer. The cookie is in no file of the state folder.
//
// Not parallel: it sets the queue's process-wide keyring
// (queue.UseKeyring), which also resets the once-per-process note that
// secrets are kept for the session only.
func TestAddMetalinkKeepsOptions(t *testing.T) {
	queue.UseKeyring(nil) // as on a machine without one: kept for the session
	t.Cleanup(func() { queue.UseKeyring(nil) })
	data := mirrortest.Bytes(1<<20+5, 4)
	ng := netconftest.Nginx(t, map[string][]byte{"m.bin": data}, "u", "p")
	state, dir, other := t.TempDir(), t.TempDir(), t.TempDir()
	doc := base64.StdEncoding.EncodeToString([]byte(meta4("m.bin", data, ng.URL+"/cookie/m.bin")))

	b := openBraid(t, state, dir, Options{})
	gid := b.call(t, "aria2.addMetalink", doc, map[string]any{"pause": "true", "dir": other, "out": "renamed.bin",
		"header":     []string{"Cookie: " + netconftest.CookieName + "=" + netconftest.CookieValue},
		"user-agent": "TestBrowser/1.0", "referer": "http://intranet.test/page"}).([]any)[0].(string)
	if st := b.call(t, "aria2.tellStatus", gid).(map[string]any); st["status"] != "paused" || st["dir"] != other {
		t.Errorf("after addMetalink with pause and dir: %v", st)
	}
	j := b.lastJob(t)
	if j.Origin.Referer != "http://intranet.test/page" || j.Files[0].Name != "renamed.bin" {
		t.Errorf("job referer %q, file %q", j.Origin.Referer, j.Files[0].Name)
	}
	b.close()

	b = openBraid(t, state, dir, Options{})
	b.call(t, "aria2.unpause", gid)
	st := b.waitStatus(t, gid, "complete")
	if st["braidChecked"] != "verified (sha-256)" {
		t.Errorf("braidChecked %v", st["braidChecked"])
	}
	on, err := os.ReadFile(filepath.Join(other, "renamed.bin"))
	if err != nil || !bytes.Equal(on, data) {
		t.Fatalf("renamed.bin: %v", err)
	}
	access, err := os.ReadFile(filepath.Join(ng.Dir, "access.log"))
	if err != nil || !strings.Contains(string(access), "TestBrowser/1.0") || !strings.Contains(string(access), "http://intranet.test/page") {
		t.Errorf("nginx did not see the user agent and the referrer given (%v):\n%s", err, access)
	}
	if strings.Contains(string(access), "\" 403 ") {
		t.Errorf("nginx refused a request of the download:\n%s", access)
	}
	b.close()
	testkit.NoSecretIn(t, state, netconftest.CookieValue)
}

// A .torrent link behind a login is read with the header given to
// addUri; the header is not kept with the job (peers need no cookie).
// addTorrent keeps dir, pause and the referrer, and refuses a header, a
// user agent and a name, which a torrent's run could not honour.
func TestTorrentOptions(t *testing.T) {
	t.Parallel()
	src := t.TempDir()
	mi := torrenttest.Make(t, src, "album", 32<<10, []torrenttest.File{{Path: "one.bin", Data: mirrortest.Bytes(70000, 1)}})
	var buf bytes.Buffer
	if err := mi.Write(&buf); err != nil {
		t.Fatal(err)
	}
	ng := netconftest.Nginx(t, map[string][]byte{"album.torrent": buf.Bytes()}, "u", "p")
	b := newBraid(t, Options{})
	link := ng.URL + "/cookie/album.torrent"
	if msg := b.callErr(t, "aria2.addUri", []string{link}, map[string]any{"pause": "true"}); !strings.Contains(msg, "403") {
		t.Fatalf("the .torrent without the cookie: %q", msg)
	}
	gid := b.call(t, "aria2.addUri", []string{link}, map[string]any{"pause": "true",
		"header": []string{"Cookie: " + netconftest.CookieName + "=" + netconftest.CookieValue}}).(string)
	if st := b.call(t, "aria2.tellStatus", gid).(map[string]any); st["infoHash"] != mi.HashInfoBytes().HexString() || st["status"] != "paused" {
		t.Errorf("the .torrent read with the cookie: %v", st)
	}
	if _, ok, _, err := b.q.Net(b.lastJob(t).ID); ok || err != nil {
		t.Errorf("the torrent job keeps network settings (%v): the cookie was for its .torrent only", err)
	}

	other := t.TempDir()
	enc := base64.StdEncoding.EncodeToString(buf.Bytes())
	gid = b.call(t, "aria2.addTorrent", enc, []string{}, map[string]any{"pause": "true", "dir": other, "referer": "http://tracker.test/t/1"}).(string)
	if st := b.call(t, "aria2.tellStatus", gid).(map[string]any); st["status"] != "paused" || st["dir"] != other {
		t.Errorf("after addTorrent with pause and dir: %v", st)
	}
	if j := b.lastJob(t); j.Origin.Referer != "http://tracker.test/t/1" {
		t.Errorf("the torrent job's referrer %q", j.Origin.Referer)
	}
	for opt, v := range map[string]any{"header": []string{"Cookie: a=b"}, "user-agent": "X/1", "out": "x.bin"} {
		msg := b.callErr(t, "aria2.addTorrent", enc, []string{}, map[string]any{opt: v})
		if !strings.Contains(msg, opt) || !strings.Contains(msg, "not supported") {
			t.Errorf("addTorrent with %s: %q, want it refused by name", opt, msg)
		}
	}
}

// A download added without a dir into the download folder goes to its
// category's folder, as one added in the window does; one given a dir
// stays there.
func TestAddSortedByCategory(t *testing.T) {
	t.Parallel()
	data := mirrortest.Bytes(64<<10, 9)
	film := mirrortest.New(t, data, mirrortest.Path("/film.mkv"))
	song := mirrortest.New(t, data, mirrortest.Path("/song.mp3"))
	state, dl, other := t.TempDir(), t.TempDir(), t.TempDir()
	b := openBraid(t, state, dl, Options{})
	if err := b.q.UpdateSettings(func(s *queue.Settings) { s.DownloadDir = dl }); err != nil {
		t.Fatal(err)
	}
	b.call(t, "aria2.addUri", []string{film.URL()}, map[string]any{"pause": "true"})
	if j := b.lastJob(t); j.Dest != filepath.Join(dl, "Video") {
		t.Errorf("a video added without a dir went to %s, want %s", j.Dest, filepath.Join(dl, "Video"))
	}
	b.call(t, "aria2.addUri", []string{song.URL()}, map[string]any{"pause": "true", "dir": other})
	if j := b.lastJob(t); j.Dest != other {
		t.Errorf("a download given a dir went to %s, want %s", j.Dest, other)
	}
	doc := base64.StdEncoding.EncodeToString([]byte(meta4("notes.pdf", data, film.URL())))
	b.call(t, "aria2.addMetalink", doc, map[string]any{"pause": "true"})
	if j := b.lastJob(t); j.Dest != filepath.Join(dl, "Documents") {
		t.Errorf("a metalink's document went to %s, want %s", j.Dest, filepath.Join(dl, "Documents"))
	}
}
