package engine

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"braid/engine/netconf"
	"braid/engine/netconf/netconftest"
	"braid/engine/transport"
	"braid/internal/testkit"
)

// headerMirror is a mirror on its own loopback address that serves data
// with ranges and remembers the request headers it was sent.
type headerMirror struct {
	*httptest.Server
	mu   sync.Mutex
	seen []http.Header
}

func newHeaderMirror(t *testing.T, addr string, data []byte) *headerMirror {
	m := &headerMirror{}
	m.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		m.mu.Lock()
		m.seen = append(m.seen, r.Header.Clone())
		m.mu.Unlock()
		http.ServeContent(w, r, "f.bin", time.Time{}, bytes.NewReader(data))
	}))
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Skipf("cannot listen on %s: %v", addr, err)
	}
	m.Listener = ln
	m.Start()
	t.Cleanup(m.Close)
	return m
}

func (m *headerMirror) headers() []http.Header {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]http.Header(nil), m.seen...)
}

// TestDownloadThroughProxyWithLogin braids one file from an nginx that
// asks for a login and a mirror on another host, every connection through
// a SOCKS5 proxy (direct connections are refused). The login and a header
// given for the nginx link go to nginx alone; the mirror gets neither; the
// user agent option goes to both.
func TestDownloadThroughProxyWithLogin(t *testing.T) {
	t.Parallel()
	data := testkit.Data(6<<20 + 4321)
	const pw = "engine-pw-6"
	origin := netconftest.Nginx(t, map[string][]byte{"f.bin": data}, "ann", pw)
	socks := netconftest.Microsocks(t, "", "")
	mirror := newHeaderMirror(t, "127.0.0.3:0", data)
	n, err := netconf.NewNetwork(netconf.Proxy{Mode: netconf.ProxyManual, URL: "socks5h://" + socks, DirectDial: netconftest.OnlyTo(socks)})
	if err != nil {
		t.Fatal(err)
	}
	link := origin.URL + "/basic/f.bin"
	ss, err := netconf.Settings{
		HTTPUser: "ann", HTTPPasswd: pw, NoNetrc: true,
		Headers:   []string{"X-Only-Origin: origin-header-7"},
		UserAgent: "Mozilla/5.0 braid-test",
		Links:     []string{link},
	}.Open()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	c := &Client{Network: n, MaxConnsPerMirror: 4}
	snap, err := get(t, c, &Request{Dir: dir, Net: ss, File: fileFor("f.bin", data, 256<<10, link, mirror.URL+"/f.bin")})
	if err != nil {
		t.Fatal(err)
	}
	wantFile(t, dir, "f.bin", data)
	by := filledBy(snap)
	if by[link] == 0 || by[mirror.URL+"/f.bin"] == 0 {
		t.Errorf("both mirrors should fill pieces: %v", by)
	}
	hs := mirror.headers()
	if len(hs) == 0 {
		t.Fatal("the mirror saw no request")
	}
	for _, h := range hs {
		if h.Get("Authorization") != "" || h.Get("X-Only-Origin") != "" {
			t.Fatalf("the mirror on another host got the origin's login or header: %v", h)
		}
		if h.Get("User-Agent") != "Mozilla/5.0 braid-test" {
			t.Fatalf("the mirror got User-Agent %q", h.Get("User-Agent"))
		}
	}
	for _, s := range []string{fmt.Sprint(snap.Err), fmt.Sprintf("%#v %#v", ss, n)} {
		if strings.Contains(s, pw) {
			t.Errorf("%q shows the password", s)
		}
	}
}

// TestDownloadAsksForLogin: a download from a server that asks for a
// login, given none or a wrong one, fails with a transport.LoginError
// that errors.As finds in the download's error, and no password in it.
func TestDownloadAsksForLogin(t *testing.T) {
	t.Parallel()
	data := testkit.Data(100 << 10)
	const pw = "engine-pw-8"
	origin := netconftest.Nginx(t, map[string][]byte{"f.bin": data}, "ann", pw)
	link := origin.URL + "/basic/f.bin"
	wrong, _ := url.Parse(link)
	wrong.User = url.UserPassword("ann", "not-"+pw)
	for _, tc := range []struct {
		link    string
		refused bool
	}{{link, false}, {wrong.String(), true}} {
		n, err := netconf.NewNetwork(netconf.Proxy{Mode: netconf.ProxyNone})
		if err != nil {
			t.Fatal(err)
		}
		snap, err := get(t, &Client{Network: n}, &Request{Dir: t.TempDir(), File: fileFor("f.bin", data, 0, tc.link)})
		if shown := fmt.Sprintf("%+v %#v", snap, snap); strings.Contains(shown, pw) {
			t.Errorf("the snapshot shows the password")
		}
		var le *transport.LoginError
		if !errors.As(err, &le) || le.Refused != tc.refused || !errors.Is(err, ErrNoMirrors) {
			t.Fatalf("%v: want ErrNoMirrors with a LoginError (refused %v)", err, tc.refused)
		}
		if strings.Contains(err.Error(), pw) {
			t.Errorf("the error shows the password: %v", err)
		}
	}
}
