package rpc

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"braid/engine/ftptest"
	"braid/engine/mirrortest"
	"braid/engine/netconf"
	"braid/engine/netconf/netconftest"
	"braid/internal/testkit"
	"braid/queue"
	"braid/runner"
)

// TestHeadersKeptPerJob adds downloads behind nginx's cookie- and
// header-guarded places through the RPC with the Cookie or token header a
// browser extension hands over, restarts Braid on the same state folder
// before they run, and finds the files landed: the queue kept the
// headers with the jobs. Then no file of the state folder holds the
// cookie's or the token's value.
//
// Not parallel: it sets the queue's process-wide keyring
// (queue.UseKeyring), which also resets the once-per-process note that
// secrets are kept for the session only.
func TestHeadersKeptPerJob(t *testing.T) {
	queue.UseKeyring(nil) // as on a machine without one: kept for the session
	t.Cleanup(func() { queue.UseKeyring(nil) })
	data := mirrortest.Bytes(3<<20+11, 9)
	ng := netconftest.Nginx(t, map[string][]byte{"f.bin": data}, "u", "p")
	state, dir := t.TempDir(), t.TempDir()

	b := openBraid(t, state, dir, Options{})
	// Without the cookie the place answers 403: the test's guard holds.
	// The download is listed, failed, as aria2 lists it.
	denied := b.call(t, "aria2.addUri", []string{ng.URL + "/cookie/f.bin"}).(string)
	if st := b.waitStatus(t, denied, "error"); !strings.Contains(st["braidErrorDetail"].(string), "403") {
		t.Fatalf("without the cookie: %v", st)
	}
	b.call(t, "aria2.removeDownloadResult", denied)
	gidCookie := b.call(t, "aria2.addUri", []string{ng.URL + "/cookie/f.bin"}, map[string]any{"pause": "true", "out": "c.bin",
		"header": []string{"Cookie: " + netconftest.CookieName + "=" + netconftest.CookieValue}}).(string)
	gidHeader := b.call(t, "aria2.addUri", []string{ng.URL + "/header/f.bin"}, map[string]any{"pause": "true", "out": "h.bin",
		"header": []string{netconftest.HeaderName + ": " + netconftest.HeaderValue}, "user-agent": "TestBrowser/1.0"}).(string)
	b.close()

	b = openBraid(t, state, dir, Options{})
	for _, gid := range []string{gidCookie, gidHeader} {
		b.call(t, "aria2.unpause", gid)
	}
	for _, gid := range []string{gidCookie, gidHeader} {
		b.waitStatus(t, gid, "complete")
	}
	for _, name := range []string{"c.bin", "h.bin"} {
		on, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || !bytes.Equal(on, data) {
			t.Fatalf("%s: %v", name, err)
		}
	}
	access, err := os.ReadFile(filepath.Join(ng.Dir, "access.log"))
	if err != nil || !strings.Contains(string(access), "TestBrowser/1.0") {
		t.Errorf("nginx never saw the user agent given (%v)", err)
	}
	b.close()

	for _, secret := range []string{netconftest.CookieValue, netconftest.HeaderValue} {
		_ = filepath.WalkDir(state, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			raw, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if bytes.Contains(raw, []byte(secret)) {
				t.Errorf("%s holds %q in clear", p, secret)
			}
			return nil
		})
	}
}

// TestLoginsPerJob: aria2's http-user and http-passwd on addUri log in to
// nginx's auth_basic, and ftp-user and ftp-passwd to an FTP server that
// takes no anonymous login; without them the download fails with aria2's
// login code (24). The passwords are in no file of the state folder, and
// addTorrent refuses a login its web seeds would never get.
//
// Not parallel: it sets the queue's process-wide keyring
// (queue.UseKeyring), which also resets the once-per-process note that
// secrets are kept for the session only.
func TestLoginsPerJob(t *testing.T) {
	queue.UseKeyring(nil)
	t.Cleanup(func() { queue.UseKeyring(nil) })
	const httpPass, ftpPass = "rpc-http-pw-77", "rpc-ftp-pw-78"
	data := mirrortest.Bytes(1<<20+5, 10)
	ng := netconftest.Nginx(t, map[string][]byte{"f.bin": data}, "ann", httpPass)
	fs := ftptest.New(t, ftptest.File("pub/g.bin", data), ftptest.User("bob", ftpPass))
	state, dir := t.TempDir(), t.TempDir()
	b := openBraid(t, state, dir, Options{})

	denied := b.call(t, "aria2.addUri", []string{ng.URL + "/basic/f.bin"}, map[string]any{"out": "denied.bin"}).(string)
	if st := b.waitStatus(t, denied, "error"); st["errorCode"] != "24" {
		t.Errorf("without the login: %v", st)
	}
	gidHTTP := b.call(t, "aria2.addUri", []string{ng.URL + "/basic/f.bin"},
		map[string]any{"out": "h.bin", "http-user": "ann", "http-passwd": httpPass}).(string)
	gidFTP := b.call(t, "aria2.addUri", []string{fs.URL("pub/g.bin")},
		map[string]any{"out": "f.bin", "ftp-user": "bob", "ftp-passwd": ftpPass}).(string)
	for _, gid := range []string{gidHTTP, gidFTP} {
		b.waitStatus(t, gid, "complete")
	}
	for _, name := range []string{"h.bin", "f.bin"} {
		if on, err := os.ReadFile(filepath.Join(dir, name)); err != nil || !bytes.Equal(on, data) {
			t.Errorf("%s: %v", name, err)
		}
	}
	// The login is refused before the torrent is read.
	msg := b.callErr(t, "aria2.addTorrent", base64.StdEncoding.EncodeToString([]byte("d4:infoe")), []string{}, map[string]any{"http-user": "ann", "http-passwd": httpPass})
	if !strings.Contains(msg, "http-user") || strings.Contains(msg, httpPass) {
		t.Errorf("addTorrent with a login: %s", msg)
	}
	b.close()
	testkit.NoSecretIn(t, state, httpPass, ftpPass)
}

// TestAddURIReadAsTheRunnerReads: a link given to addUri is read as the
// service that will run it reads, through its proxy, even before its
// first run (an idle queue run or window): the origin serves only
// requests that came through tinyproxy, so a link read directly would be
// listed failed (403) though its download could run.
func TestAddURIReadAsTheRunnerReads(t *testing.T) {
	t.Parallel()
	data := mirrortest.Bytes(1<<20, 12)
	proxy := netconftest.Tinyproxy(t, "", "")
	origin := netconftest.ProxiedOnly(t, map[string][]byte{"f.bin": data})
	n, err := netconf.NewNetwork(netconf.Proxy{Mode: netconf.ProxyManual, URL: proxy})
	if err != nil {
		t.Fatal(err)
	}
	var svc *runner.Service
	b := startBraid(t, t.TempDir(), t.TempDir(), Options{}, func(ctx context.Context, r *runner.Runner) (func(), <-chan struct{}) {
		svc = runner.NewService(r)
		svc.Network = n // as braid queue run --all-proxy and the window give it
		done := make(chan struct{})
		go func() {
			defer close(done)
			svc.Serve(ctx, true)
		}()
		return svc.Wake, done
	})
	b.dl.Reader = svc // as the faces wire it
	gid := b.call(t, "aria2.addUri", []string{origin.URL + "/p/f.bin"}).(string)
	b.waitStatus(t, gid, "complete")
	if on, err := os.ReadFile(filepath.Join(b.dir, "f.bin")); err != nil || !bytes.Equal(on, data) {
		t.Fatalf("f.bin: %v", err)
	}
}

// TestProxyPerDownload: aria2's all-proxy on addUri sends that download
// (its first look and its run) through the proxy, while Braid itself
// connects directly: the origin serves only requests that came through
// tinyproxy, which asks for a login. The login is taken in the proxy URL
// and as all-proxy-user and all-proxy-passwd, is kept with the job over a
// restart, and is in no file of the state folder. no-proxy sends a host
// past the proxy; http-proxy, which Braid does not take for one scheme,
// and all-proxy for a torrent are refused with a sentence.
//
// Not parallel: it sets the queue's process-wide keyring
// (queue.UseKeyring).
func TestProxyPerDownload(t *testing.T) {
	queue.UseKeyring(nil)
	t.Cleanup(func() { queue.UseKeyring(nil) })
	const pass = "proxy-pw-5150"
	data := mirrortest.Bytes(1<<20+3, 13)
	proxy := netconftest.Tinyproxy(t, "pat", pass)
	bare := strings.Replace(proxy, "pat:"+pass+"@", "", 1)
	origin := netconftest.ProxiedOnly(t, map[string][]byte{"f.bin": data})
	open := netconftest.Nginx(t, map[string][]byte{"g.bin": data}, "u", "p")
	state, dir := t.TempDir(), t.TempDir()
	b := openBraid(t, state, dir, Options{})

	direct := b.call(t, "aria2.addUri", []string{origin.URL + "/p/f.bin"}, map[string]any{"out": "direct.bin"}).(string)
	if st := b.waitStatus(t, direct, "error"); !strings.Contains(st["braidErrorDetail"].(string), "403") {
		t.Fatalf("without all-proxy the origin's guard should refuse Braid: %v", st)
	}
	inURL := b.call(t, "aria2.addUri", []string{origin.URL + "/p/f.bin"},
		map[string]any{"out": "a.bin", "all-proxy": proxy, "pause": "true"}).(string)
	asOptions := b.call(t, "aria2.addUri", []string{origin.URL + "/p/f.bin"},
		map[string]any{"out": "b.bin", "all-proxy": bare, "all-proxy-user": "pat", "all-proxy-passwd": pass, "pause": "true"}).(string)
	// A SOCKS proxy refuses a wrong password, and the download says it
	// was the proxy. (tinyproxy answers a plain request's wrong login
	// with 401, as a server would.)
	socks := netconftest.Microsocks(t, "pat", pass)
	wrong := b.call(t, "aria2.addUri", []string{origin.URL + "/p/f.bin"},
		map[string]any{"out": "w.bin", "all-proxy": "socks5://" + socks, "all-proxy-user": "pat", "all-proxy-passwd": "not-" + pass}).(string)
	if st := b.waitStatus(t, wrong, "error"); st["errorCode"] != "24" || !strings.Contains(st["errorMessage"].(string), "proxy") {
		t.Errorf("with the proxy's login refused: %v", st)
	}
	// A proxy that does not answer, which no-proxy keeps the origin's
	// host away from.
	passed := b.call(t, "aria2.addUri", []string{open.URL + "/open/g.bin"},
		map[string]any{"out": "c.bin", "all-proxy": "http://127.0.0.1:9", "no-proxy": "127.0.0.2", "pause": "true"}).(string)
	b.close()

	b = openBraid(t, state, dir, Options{})
	for _, gid := range []string{inURL, asOptions, passed} {
		b.call(t, "aria2.unpause", gid)
	}
	for _, gid := range []string{inURL, asOptions, passed} {
		b.waitStatus(t, gid, "complete")
	}
	for _, name := range []string{"a.bin", "b.bin", "c.bin"} {
		if on, err := os.ReadFile(filepath.Join(dir, name)); err != nil || !bytes.Equal(on, data) {
			t.Errorf("%s: %v", name, err)
		}
	}
	// getOption names each download's proxy and user, never the password.
	for _, gid := range []string{inURL, asOptions} {
		o := b.call(t, "aria2.getOption", gid).(map[string]any)
		if o["all-proxy"] != bare || o["all-proxy-user"] != "pat" || strings.Contains(fmt.Sprint(o), pass) {
			t.Errorf("getOption of %s: %v; want all-proxy %s and all-proxy-user pat, no password", gid, o, bare)
		}
	}
	for _, c := range []struct {
		method string
		params []any
		want   string
	}{
		{"aria2.addUri", []any{[]string{origin.URL + "/p/f.bin"}, map[string]any{"http-proxy": proxy}}, "http-proxy"},
		{"aria2.addUri", []any{[]string{"magnet:?xt=urn:btih:" + strings.Repeat("ab", 20)}, map[string]any{"all-proxy": proxy}}, "all-proxy option for a torrent"},
		{"aria2.addTorrent", []any{base64.StdEncoding.EncodeToString([]byte("d4:infoe")), []string{}, map[string]any{"all-proxy": proxy}}, "all-proxy option for a torrent"},
		{"aria2.addUri", []any{[]string{origin.URL + "/p/f.bin"}, map[string]any{"all-proxy": "gopher://127.0.0.1:70"}}, "gopher"},
	} {
		msg := b.callErr(t, c.method, c.params...)
		if !strings.Contains(msg, c.want) || strings.Contains(msg, pass) {
			t.Errorf("%s with %v: %s; want it refused, naming %q", c.method, c.params[len(c.params)-1], msg, c.want)
		}
	}
	b.close()
	testkit.NoSecretIn(t, state, pass)
}
