package rpc

import (
	"encoding/base64"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"braid/engine/mirrortest"
	"braid/engine/torrent/torrenttest"
)

// addUri never reads a file of the machine Braid runs on: a local path
// or a file: URL (of a metalink or a .torrent that Braid could read, of a
// file that is neither, of one that is missing) answers aria2's "No URI
// to download." with a sentence saying why, and adds nothing. Among
// mirrors, such URIs are dropped, as aria2 drops what it cannot use.
func TestAddURINeverReadsLocalFiles(t *testing.T) {
	t.Parallel()
	b := newBraid(t, Options{})
	data := mirrortest.Bytes(1000, 2)
	m := mirrortest.New(t, data)
	dir := t.TempDir()
	doc := filepath.Join(dir, "real.meta4")
	if err := os.WriteFile(doc, []byte(meta4("real.bin", data, m.URL())), 0o600); err != nil {
		t.Fatal(err)
	}
	mi := torrenttest.Make(t, t.TempDir(), "t.bin", 16<<10, []torrenttest.File{{Data: data}})
	tor := torrenttest.WriteFile(t, mi, "real.torrent")
	secret := filepath.Join(dir, "passwd")
	if err := os.WriteFile(secret, []byte("root:x:0:0:root:/root:/bin/sh\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	fileURL := func(p string) string { return (&url.URL{Scheme: "file", Path: filepath.ToSlash(p)}).String() }
	for _, src := range []string{
		doc, fileURL(doc), tor, fileURL(tor), secret, fileURL(secret),
		filepath.Join(dir, "missing.meta4"), "file:///etc/passwd", "/etc/passwd",
		"real.meta4", "ftp:///no-host.bin", "gopher://example.test/x",
	} {
		t.Run(src, func(t *testing.T) {
			msg := b.callErr(t, "aria2.addUri", []string{src})
			if !strings.HasPrefix(msg, "No URI to download.") || !strings.Contains(msg, "never a file") {
				t.Errorf("addUri %s: %q, want aria2's No URI to download with why", src, msg)
			}
			if strings.Contains(msg, "root:") || strings.Contains(msg, "XML") || strings.Contains(msg, "no such file") {
				t.Errorf("addUri %s: the answer shows the file was read: %q", src, msg)
			}
		})
	}
	if jobs, err := b.q.List(); err != nil || len(jobs) != 0 {
		t.Fatalf("refused adds left jobs %v (%v)", jobs, err)
	}

	// A local path among mirrors is dropped; the link is added.
	gid := b.call(t, "aria2.addUri", []string{secret, m.URL(), fileURL(doc)}, map[string]any{"pause": "true"}).(string)
	uris := b.call(t, "aria2.getUris", gid).([]any)
	if len(uris) != 1 || uris[0].(map[string]any)["uri"] != m.URL() {
		t.Errorf("getUris %v, want only %s", uris, m.URL())
	}
	// A .torrent link that is not http(s) is refused, not read as a path.
	if msg := b.callErr(t, "aria2.addUri", []string{"ftp://127.0.0.1:1/x.torrent"}); !strings.Contains(msg, "addTorrent") {
		t.Errorf("a .torrent over ftp: %q", msg)
	}
	// addTorrent's web seeds are links too: a local path among them is
	// dropped.
	raw, err := os.ReadFile(tor)
	if err != nil {
		t.Fatal(err)
	}
	gid = b.call(t, "aria2.addTorrent", base64.StdEncoding.EncodeToString(raw), []string{secret, m.URL()}, map[string]any{"pause": "true"}).(string)
	if st := b.call(t, "aria2.tellStatus", gid).(map[string]any); st["status"] != "paused" || st["infoHash"] != mi.HashInfoBytes().HexString() {
		t.Errorf("addTorrent: %v", st)
	}
	spec, ok, err := b.q.TorrentSpec(b.lastJob(t).ID)
	if err != nil || !ok || len(spec.WebSeeds) != 1 || spec.WebSeeds[0] != m.URL() {
		t.Errorf("the torrent's web seeds: %v (%v %v), want only %s", spec, ok, err, m.URL())
	}
}
