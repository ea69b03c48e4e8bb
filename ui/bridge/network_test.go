package bridge

import (
	"bytes"
	"context"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"braid/engine/metalink"
	"braid/engine/mirrortest"
	"braid/engine/netconf/netconftest"
	"braid/engine/resourcesync/rstest"
	"braid/engine/signature/signaturetest"
	"braid/internal/testkit"
	"braid/queue"
	"braid/ui"
)

// TestProxySettingThroughBridge: the window's Manual proxy (tinyproxy,
// with a login) carries a download from an origin that serves only
// requests that came through tinyproxy. Set to None, the next download
// goes direct and the origin refuses it (403): the setting reaches the
// running window's new requests. Set to Manual again without typing the
// password, the kept one is used and the refused job completes. The
// password is never in the state folder nor in the stored setting.
//
// Not parallel: it sets the queue's process-wide keyring
// (queue.UseKeyring), which also resets the once-per-process note that
// secrets are kept for the session only.
func TestProxySettingThroughBridge(t *testing.T) {
	queue.UseKeyring(nil)
	const proxyPass = "tiny-proxy-pw-77"
	proxy := netconftest.Tinyproxy(t, "pu", proxyPass)
	data := mirrortest.Bytes(300<<10, 41)
	origin := netconftest.ProxiedOnly(t, map[string][]byte{"a.bin": data, "b.bin": data})
	pu, err := url.Parse(proxy)
	if err != nil {
		t.Fatal(err)
	}
	state := t.TempDir()
	q, err := queue.Open(state)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { q.Close() })
	b := newBackend(t, q)
	manual := ui.ProxySetting{Mode: ui.ProxyManual, URL: "http://pu@" + pu.Host, NoProxy: "example.invalid", Password: proxyPass}
	if _, err := b.SetProxy(manual); err != nil {
		t.Fatal(err)
	}
	if got, err := b.Proxy(); err != nil || got.Mode != ui.ProxyManual || got.URL != manual.URL || !got.HasPassword || got.Password != "" {
		t.Fatalf("stored setting: %+v, %v", got, err)
	}
	if _, err := b.SetProxy(ui.ProxySetting{Mode: ui.ProxyManual, URL: "gopher://x"}); err == nil {
		t.Error("an unusable proxy URL was taken")
	}
	dir := t.TempDir()
	add := func(name string) int64 {
		doc := &metalink.Document{Version: 4, Files: []metalink.File{describeData(t, name, data, origin.URL+"/p/"+name)}}
		id, err := q.Add(queue.NewJob{Source: origin.URL + "/p/" + name, Dest: dir, Doc: doc})
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	state1 := func(id int64) queue.State { s, _ := q.StateOf(id); return s }
	a := add("a.bin")
	if err := b.Start(true); err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, "a.bin through the proxy", func() bool { return state1(a) == queue.Done })

	if _, err := b.SetProxy(ui.ProxySetting{Mode: ui.ProxyNone}); err != nil {
		t.Fatal(err)
	}
	bj := add("b.bin")
	b.Wake()
	testkit.WaitFor(t, "b.bin refused when direct", func() bool { return state1(bj) == queue.Failed })
	j, _ := q.Get(bj)
	if !strings.Contains(j.Error, "403") {
		t.Errorf("direct, b.bin failed with %q; want the origin's 403", j.Error)
	}

	manual.Password = "" // kept from before
	if _, err := b.SetProxy(manual); err != nil {
		t.Fatal(err)
	}
	if err := b.Resume(ui.JobID(bj)); err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, "b.bin through the proxy again", func() bool { return state1(bj) == queue.Done })
	if got, _ := os.ReadFile(filepath.Join(dir, "b.bin")); !bytes.Equal(got, data) {
		t.Error("b.bin is not the origin's")
	}
	log, _ := os.ReadFile(filepath.Join(origin.Dir, "access.log"))
	if !strings.Contains(string(log), "tinyproxy") || !strings.Contains(string(log), "403 ") {
		t.Errorf("the origin did not see both the proxied and the direct requests:\n%s", log)
	}
	_ = filepath.WalkDir(state, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if raw, _ := os.ReadFile(p); bytes.Contains(raw, []byte(proxyPass)) {
				t.Errorf("%s holds the proxy password", p)
			}
		}
		return nil
	})
}

// TestSyncSourceThroughProxy: with the window's proxy set, a ResourceSync
// source is recognised and read through it (its well-known document
// first), and its sync job runs through it: the source refuses every
// request that did not come through tinyproxy.
func TestSyncSourceThroughProxy(t *testing.T) {
	proxy := netconftest.Tinyproxy(t, "", "")
	src := rstest.New(t)
	src.OnlyVia = "tinyproxy"
	data := payload(64 << 10)
	src.Put("/a.bin", data)
	q := openQueue(t)
	b := newBackend(t, q)
	if _, err := b.SetProxy(ui.ProxySetting{Mode: ui.ProxyManual, URL: proxy}); err != nil {
		t.Fatal(err)
	}
	if err := b.Start(false); err != nil {
		t.Fatal(err)
	}
	id, dir := addSyncSource(t, b, src.URL())
	testkit.WaitFor(t, "the sync through the proxy to end", func() bool {
		s, err := q.StateOf(int64(id))
		return err == nil && (s == queue.Done || s == queue.Failed)
	})
	if j, _ := q.Get(int64(id)); j.State != queue.Done {
		t.Fatalf("the sync job through the proxy: %s %q", j.State, j.Error)
	}
	if got, err := os.ReadFile(filepath.Join(dir, "a.bin")); err != nil || !bytes.Equal(got, data) {
		t.Fatalf("a.bin after the sync: %v", err)
	}
}

// TestImportKeyThroughProxy: with the window's proxy set, a key's URL in
// the settings' Keys section is read through it, as a source is: the
// origin refuses any request that did not come through tinyproxy.
func TestImportKeyThroughProxy(t *testing.T) {
	t.Parallel()
	proxy := netconftest.Tinyproxy(t, "", "")
	key := signaturetest.New(t, "Ann", "ann@example.org")
	origin := netconftest.ProxiedOnly(t, map[string][]byte{"ann.asc": key.PublicArmored(t)})
	keyURL := origin.URL + "/p/ann.asc"
	b := newBackend(t, openQueue(t))
	if keys, err := b.ImportKey(context.Background(), keyURL); err == nil || !strings.Contains(err.Error(), "403") {
		t.Fatalf("a key around the proxy: %v, %v", keys, err)
	}
	if _, err := b.SetProxy(ui.ProxySetting{Mode: ui.ProxyManual, URL: proxy}); err != nil {
		t.Fatal(err)
	}
	keys, err := b.ImportKey(context.Background(), keyURL)
	if err != nil || len(keys) != 1 || keys[0].Fingerprint != key.Fingerprint() {
		t.Fatalf("a key through the proxy: %+v, %v", keys, err)
	}
}
