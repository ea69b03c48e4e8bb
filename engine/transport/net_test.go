package transport_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"braid/engine/ftptest"
	"braid/engine/netconf"
	"braid/engine/netconf/netconftest"
	"braid/engine/transport"
	"braid/internal/testkit"
)

// seen collects everything a test's code produced (errors, descriptions,
// the standard logger's output) to be searched for secrets at its end.
type seen struct {
	mu    sync.Mutex
	texts []string
}

func (s *seen) add(vs ...any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, v := range vs {
		if v == nil {
			continue
		}
		s.texts = append(s.texts, fmt.Sprintf("%v | %+v | %#v", v, v, v))
	}
}

// watch captures the standard logger (net/http writes there) and, when
// the test ends, fails it if anything seen holds one of secrets.
func watch(t *testing.T, secrets ...string) *seen {
	s := &seen{}
	var logged bytes.Buffer
	log.SetOutput(&logged)
	t.Cleanup(func() {
		log.SetOutput(os.Stderr)
		s.add(logged.String())
		for _, text := range s.texts {
			for _, secret := range secrets {
				if strings.Contains(text, secret) {
					t.Errorf("a secret (%d characters) was shown in: %s", len(secret), strings.ReplaceAll(text, secret, "<SECRET>"))
				}
			}
		}
		if len(s.texts) < 2 && !t.Skipped() { // a skipped test collected nothing, and says why
			t.Error("nothing was collected to search: the search proves nothing")
		}
	})
	return s
}

func network(t *testing.T, p netconf.Proxy) *netconf.Network {
	t.Helper()
	n, err := netconf.NewNetwork(p)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(n.HTTPClient().CloseIdleConnections)
	return n
}

// viaNet is a source whose client is its Network's (newHTTP gives each
// source a client of the environment's).
func viaNet(t *testing.T, link string, o transport.Options) *transport.HTTPSource {
	t.Helper()
	src, err := transport.NewHTTP(link, o)
	if err != nil {
		t.Fatal(err)
	}
	return src
}

func hostOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		panic(err)
	}
	return u.Host
}

// TestThroughProxies reads from an nginx on 127.0.0.2 through each kind of
// proxy, with a dialer that refuses every connection but the one to the
// proxy: the bytes can only have come through it. A login in the link
// travels through the proxy to the origin.
func TestThroughProxies(t *testing.T) {
	data := testkit.Data(300 << 10)
	origin := netconftest.Nginx(t, map[string][]byte{"f.bin": data}, "ann", "origin-pw-1")
	const proxyPass = "proxy-pw-2"
	seen := watch(t, proxyPass, "origin-pw-1")
	tls := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.ServeContent(w, r, "f.bin", time.Time{}, bytes.NewReader(data))
	}))
	ln, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		t.Fatal(err)
	}
	tls.Listener = ln
	tls.StartTLS()
	defer tls.Close()
	// The test certificate names 127.0.0.1; the server is on 127.0.0.2.
	trust := tls.Client().Transport.(*http.Transport).TLSClientConfig.Clone()
	trust.ServerName = "127.0.0.1"
	tiny := netconftest.Tinyproxy(t, "", "")
	tinyAuth := netconftest.Tinyproxy(t, "pu", proxyPass)
	socks := netconftest.Microsocks(t, "", "")
	socksAuth := netconftest.Microsocks(t, "su", proxyPass)
	for _, tc := range []struct{ name, proxy string }{
		{"http proxy", tiny},
		{"http proxy with a login", tinyAuth},
		{"socks5", "socks5://" + socks},
		{"socks5h", "socks5h://" + socks},
		{"socks5h with a login", "socks5h://su:" + proxyPass + "@" + socksAuth},
	} {
		t.Run(tc.name, func(t *testing.T) {
			only := netconftest.OnlyTo(hostOf(tc.proxy))
			n := network(t, netconf.Proxy{Mode: netconf.ProxyManual, URL: tc.proxy, DirectDial: only,
				TLSClientConfig: trust})
			seen.add(n, n.String())
			for _, link := range []string{
				origin.URL + "/open/f.bin",
				strings.Replace(origin.URL, "://", "://ann:origin-pw-1@", 1) + "/basic/f.bin",
				tls.URL + "/f.bin",
			} {
				src, err := transport.NewHTTP(link, transport.Options{Size: int64(len(data)), Network: n})
				if err != nil {
					t.Fatal(err)
				}
				info, err := src.Stat(context.Background())
				seen.add(err, src.Mirror())
				if err != nil || info.Size != int64(len(data)) {
					t.Fatalf("%s: stat through %s: %+v, %v", src.Mirror(), n, info, err)
				}
				got, err := readAll(context.Background(), src, 1000, 200<<10)
				seen.add(err)
				if err != nil || !bytes.Equal(got, data[1000:1000+200<<10]) {
					t.Fatalf("%s: read through %s: %v", src.Mirror(), n, err)
				}
			}
		})
	}
	t.Run("the BitTorrent client's ways: Proxy, RoundTripper, DialContext", func(t *testing.T) {
		for _, proxy := range []string{tiny, "socks5h://" + socks} {
			n := network(t, netconf.Proxy{Mode: netconf.ProxyManual, URL: proxy, DirectDial: netconftest.OnlyTo(hostOf(proxy))})
			// A tracker's client: net/http's own proxy support, as
			// anacrolix's ClientConfig.HTTPProxy uses it.
			tracker := &http.Client{Transport: &http.Transport{Proxy: n.Proxy, DialContext: netconftest.OnlyTo(hostOf(proxy))}}
			// Web seeds: ClientConfig.WebTransport.
			seeds := &http.Client{Transport: n.RoundTripper()}
			for _, c := range []*http.Client{tracker, seeds} {
				resp, err := c.Get(origin.URL + "/open/f.bin")
				seen.add(err)
				if err != nil {
					t.Fatalf("through %s: %v", netconf.Redacted(n.ProxyFor("http", "x")), err)
				}
				got, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				if err != nil || !bytes.Equal(got, data) {
					t.Fatalf("through %s: %d bytes, %v", netconf.Redacted(n.ProxyFor("http", "x")), len(got), err)
				}
				c.CloseIdleConnections()
			}
			// A peer connection: a plain TCP stream to the origin's port.
			conn, err := n.DialContext(context.Background(), "tcp", hostOf(origin.URL))
			if err != nil {
				t.Fatalf("peer dial through %s: %v", netconf.Redacted(n.ProxyFor("", "x")), err)
			}
			fmt.Fprintf(conn, "HEAD /open/f.bin HTTP/1.0\r\n\r\n")
			line, err := bufio.NewReader(conn).ReadString('\n')
			conn.Close()
			if err != nil || !strings.HasPrefix(line, "HTTP/1.1 200") {
				t.Fatalf("peer stream through %s: %q, %v", netconf.Redacted(n.ProxyFor("", "x")), line, err)
			}
			if _, err := n.DialContext(context.Background(), "udp", hostOf(origin.URL)); err == nil {
				t.Error("a UDP dial was let through a proxy that cannot carry it")
			}
		}
	})
	t.Run("the guard refuses a direct connection", func(t *testing.T) {
		n := network(t, netconf.Proxy{Mode: netconf.ProxyNone, DirectDial: netconftest.OnlyTo(hostOf(tiny))})
		src := viaNet(t, origin.URL+"/open/f.bin", transport.Options{Size: int64(len(data)), Network: n})
		_, err := readAll(context.Background(), src, 0, 10)
		seen.add(err)
		if err == nil {
			t.Fatal("a direct read passed the guard: the proxy tests prove nothing")
		}
	})
	t.Run("a proxy login missing or refused", func(t *testing.T) {
		noLogin := "http://" + hostOf(tinyAuth)
		for _, tc := range []struct {
			proxy, link string
			proxyAsks   bool // false: tinyproxy answers a wrong login with 401, like a server
		}{
			{noLogin, origin.URL + "/open/f.bin", true},
			{noLogin, tls.URL + "/f.bin", true},
			{strings.Replace(tinyAuth, proxyPass, "wrong-"+proxyPass, 1), origin.URL + "/open/f.bin", false},
			{"socks5h://su:wrong-" + proxyPass + "@" + socksAuth, origin.URL + "/open/f.bin", true},
			{"socks5h://" + socksAuth, origin.URL + "/open/f.bin", true},
		} {
			n := network(t, netconf.Proxy{Mode: netconf.ProxyManual, URL: tc.proxy, DirectDial: netconftest.OnlyTo(hostOf(tc.proxy)),
				TLSClientConfig: trust})
			src := viaNet(t, tc.link, transport.Options{Size: int64(len(data)), Network: n})
			_, err := readAll(context.Background(), src, 0, 10)
			seen.add(err, n)
			t.Logf("%v", err)
			var le *transport.LoginError
			if !errors.As(err, &le) || le.Proxy != tc.proxyAsks {
				t.Errorf("%s through %s: %v, want a LoginError (proxy %v)", tc.link, n, err, tc.proxyAsks)
			}
		}
		ftpSrv := ftptest.New(t, ftptest.File("f.bin", data))
		var err error
		n := network(t, netconf.Proxy{Mode: netconf.ProxyManual, URL: "socks5h://" + socksAuth, DirectDial: netconftest.OnlyTo(socksAuth)})
		_, err = readAll(context.Background(), newFTP(t, ftpSrv.URL("f.bin"), transport.Options{Size: int64(len(data)), Network: n}), 0, 10)
		seen.add(err)
		var le *transport.LoginError
		if !errors.As(err, &le) || !le.Proxy {
			t.Errorf("FTP through a SOCKS proxy without its login: %v, want a LoginError from the proxy", err)
		}
	})
	t.Run("the environment, loopback included", func(t *testing.T) {
		env := map[string]string{"ALL_PROXY": "socks5h://" + socks, "no_proxy": "example.com"}
		n := network(t, netconf.Proxy{Getenv: func(k string) string { return env[k] }, DirectDial: netconftest.OnlyTo(socks)})
		src := viaNet(t, origin.URL+"/open/f.bin", transport.Options{Size: int64(len(data)), Network: n})
		got, err := readAll(context.Background(), src, 0, 1000)
		seen.add(err)
		if err != nil || !bytes.Equal(got, data[:1000]) {
			t.Fatalf("through all_proxy: %v", err)
		}
	})
}

// TestFTPThroughProxies reads from an FTP server through SOCKS5 and
// through an HTTP proxy's CONNECT, control and data connections alike.
func TestFTPThroughProxies(t *testing.T) {
	data := testkit.Data(200 << 10)
	srv := ftptest.New(t, ftptest.File("f.bin", data), ftptest.User("carol", "ftp-pw-3"))
	seen := watch(t, "ftp-pw-3")
	tiny := netconftest.Tinyproxy(t, "", "")
	socks := netconftest.Microsocks(t, "", "")
	for _, proxy := range []string{"socks5h://" + socks, "socks5://" + socks, tiny} {
		t.Run(proxy, func(t *testing.T) {
			n := network(t, netconf.Proxy{Mode: netconf.ProxyManual, URL: proxy, DirectDial: netconftest.OnlyTo(hostOf(proxy))})
			src := newFTP(t, srv.UserURL("f.bin", "carol", "ftp-pw-3"), transport.Options{Size: int64(len(data)), Network: n})
			info, err := src.Stat(context.Background())
			seen.add(err, src.Mirror())
			if err != nil || info.Size != int64(len(data)) {
				t.Fatalf("stat: %+v, %v", info, err)
			}
			got, err := readAll(context.Background(), src, 5000, 100<<10)
			seen.add(err)
			if err != nil || !bytes.Equal(got, data[5000:5000+100<<10]) {
				t.Fatalf("read: %v", err)
			}
		})
	}
	// vsftpd listens for data on its own address only: through a proxy
	// on another address, the data connection must go to the server's,
	// not to the address the control connection seems to come from.
	vs := netconftest.Vsftpd(t, map[string][]byte{"f.bin": data})
	for _, proxy := range []string{"socks5h://" + socks, tiny} {
		t.Run("vsftpd through "+proxy, func(t *testing.T) {
			n := network(t, netconf.Proxy{Mode: netconf.ProxyManual, URL: proxy, DirectDial: netconftest.OnlyTo(hostOf(proxy))})
			src := newFTP(t, "ftp://"+vs+"/pub/f.bin", transport.Options{Size: int64(len(data)), Network: n})
			got, err := readAll(context.Background(), src, 5000, 100<<10)
			if err != nil || !bytes.Equal(got, data[5000:5000+100<<10]) {
				t.Fatalf("read: %v", err)
			}
		})
	}
	t.Run("socks5 resolves the name here", func(t *testing.T) {
		n := network(t, netconf.Proxy{Mode: netconf.ProxyManual, URL: "socks5://" + socks, DirectDial: netconftest.OnlyTo(socks)})
		_, port, _ := net.SplitHostPort(srv.Addr())
		link := strings.Replace(srv.UserURL("f.bin", "carol", "ftp-pw-3"), srv.Addr(), "localhost:"+port, 1)
		src := newFTP(t, link, transport.Options{Size: int64(len(data)), Network: n})
		got, err := readAll(context.Background(), src, 0, 1000)
		seen.add(err)
		if err != nil || !bytes.Equal(got, data[:1000]) {
			t.Fatalf("read from localhost through socks5: %v", err)
		}
	})
	t.Run("direct is refused", func(t *testing.T) {
		n := network(t, netconf.Proxy{Mode: netconf.ProxyNone, DirectDial: netconftest.OnlyTo(hostOf(tiny))})
		src := newFTP(t, srv.UserURL("f.bin", "carol", "ftp-pw-3"), transport.Options{Size: int64(len(data)), Network: n})
		_, err := readAll(context.Background(), src, 0, 10)
		seen.add(err)
		if err == nil {
			t.Fatal("a direct FTP read passed the guard")
		}
	})
}

func open(t *testing.T, s netconf.Settings) *netconf.Session {
	t.Helper()
	ss, err := s.Open()
	if err != nil {
		t.Fatal(err)
	}
	return ss
}

// TestLogins asks nginx (auth_basic) and lighttpd (Digest) for a file
// behind a login given each way: in the link, by the user and password
// options, by .netrc. A missing login and a wrong one fail with a
// LoginError that says which; nothing shows a password.
func TestLogins(t *testing.T) {
	const pw = "login-pw-4"
	data := testkit.Data(64 << 10)
	files := map[string][]byte{"f.bin": data}
	basic := netconftest.Nginx(t, files, "ann", pw)
	dig := netconftest.Lighttpd(t, files, "ann", pw)
	seen := watch(t, pw)
	dir := t.TempDir()
	netrc := filepath.Join(dir, "netrc")
	var entries strings.Builder
	for _, o := range []string{basic.URL, dig} {
		u, _ := url.Parse(o)
		fmt.Fprintf(&entries, "machine %s login ann password %s\n", u.Hostname(), pw)
	}
	if err := os.WriteFile(netrc, []byte(entries.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	wrongRC := filepath.Join(dir, "wrong")
	if err := os.WriteFile(wrongRC, []byte(strings.ReplaceAll(entries.String(), pw, "nope")), 0o600); err != nil {
		t.Fatal(err)
	}
	withUser := func(link, user, pass string) string {
		return strings.Replace(link, "://", "://"+user+":"+pass+"@", 1)
	}
	for _, server := range []struct{ name, link string }{
		{"basic", basic.URL + "/basic/f.bin"},
		{"digest", dig + "/digest/f.bin"},
	} {
		cases := []struct {
			name    string
			link    string
			s       *netconf.Settings
			ok      bool
			refused bool
		}{
			{"in the link", withUser(server.link, "ann", pw), nil, true, false},
			{"by options", server.link, &netconf.Settings{HTTPUser: "ann", HTTPPasswd: pw, NoNetrc: true, Links: []string{server.link}}, true, false},
			{"by .netrc", server.link, &netconf.Settings{NetrcFile: netrc}, true, false},
			{"the link's login before .netrc's", withUser(server.link, "ann", pw), &netconf.Settings{NetrcFile: wrongRC}, true, false},
			{"none", server.link, nil, false, false},
			{"options for another host's link", server.link, &netconf.Settings{HTTPUser: "ann", HTTPPasswd: pw, NoNetrc: true, Links: []string{"http://elsewhere.example/f"}}, false, false},
			{"wrong in the link", withUser(server.link, "ann", "nope"), nil, false, true},
			{"wrong in .netrc", server.link, &netconf.Settings{NetrcFile: wrongRC}, false, true},
		}
		for _, tc := range cases {
			t.Run(server.name+"/"+tc.name, func(t *testing.T) {
				o := transport.Options{Size: int64(len(data)), Network: network(t, netconf.Proxy{Mode: netconf.ProxyNone})}
				if tc.s != nil {
					o.Session = open(t, *tc.s)
					seen.add(o.Session, *tc.s)
				}
				src := viaNet(t, tc.link, o)
				asked := count401(t, basic)
				// Several ranges: after the first, the login goes at once.
				offs := []int64{0, 30000, 60000}
				if !tc.ok {
					offs = offs[:1] // lighttpd makes a refused login wait
				}
				for _, off := range offs {
					got, err := readAll(context.Background(), src, off, 4000)
					seen.add(err)
					var le *transport.LoginError
					switch {
					case tc.ok && (err != nil || !bytes.Equal(got, data[off:off+4000])):
						t.Fatalf("bytes at %d: %v", off, err)
					case !tc.ok && !errors.As(err, &le):
						t.Fatalf("%v, want a LoginError", err)
					case !tc.ok && le.Refused != tc.refused:
						t.Fatalf("%v: Refused is %v", err, le.Refused)
					case !tc.ok && !errors.Is(err, transport.ErrDenied):
						t.Fatalf("%v does not match ErrDenied", err)
					}
				}
				if n := count401(t, basic) - asked; server.name == "basic" && tc.ok && n != 1 {
					t.Errorf("nginx answered 401 %d times for three ranges, want once", n)
				}
			})
		}
	}
}

// count401 counts the 401 answers in nginx's access log.
func count401(t *testing.T, o *netconftest.Origin) int {
	b, err := os.ReadFile(filepath.Join(o.Dir, "access.log"))
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(b), "\" 401 ")
}

// TestFTPLogins: the FTP user and password options and .netrc log in
// where the link has no login; a server that wants one says so.
func TestFTPLogins(t *testing.T) {
	const pw = "ftp-pw-5"
	data := testkit.Data(10 << 10)
	srv := ftptest.New(t, ftptest.File("f.bin", data), ftptest.User("dan", pw))
	seen := watch(t, pw)
	host, _, _ := net.SplitHostPort(srv.Addr())
	netrc := filepath.Join(t.TempDir(), "netrc")
	if err := os.WriteFile(netrc, []byte("machine "+host+" login dan password "+pw+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		s       *netconf.Settings
		ok      bool
		refused bool
	}{
		{"options", &netconf.Settings{FTPUser: "dan", FTPPasswd: pw, NoNetrc: true, Links: []string{srv.URL("f.bin")}}, true, false},
		{".netrc", &netconf.Settings{NetrcFile: netrc}, true, false},
		{"anonymous", nil, false, false},
		{"wrong", &netconf.Settings{FTPUser: "dan", FTPPasswd: "nope", NoNetrc: true, AllHosts: true}, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var o transport.Options
			o.Size = int64(len(data))
			if tc.s != nil {
				o.Session = open(t, *tc.s)
			}
			src := newFTP(t, srv.URL("f.bin"), o)
			got, err := readAll(context.Background(), src, 0, int64(len(data)))
			seen.add(err, src.Mirror())
			var le *transport.LoginError
			switch {
			case tc.ok && (err != nil || !bytes.Equal(got, data)):
				t.Fatalf("read: %v", err)
			case !tc.ok && (!errors.As(err, &le) || le.Refused != tc.refused):
				t.Fatalf("%v, want a LoginError with Refused %v", err, tc.refused)
			}
		})
	}
}

// TestCookiesAndHeaders reads from nginx places that answer 403 without
// a cookie or a header: with a cookies.txt (a curl #HttpOnly_ line) and
// with --header, both pass; a header given for another host's link is
// not sent, nor a cookie for another domain.
func TestCookiesAndHeaders(t *testing.T) {
	data := testkit.Data(20 << 10)
	origin := netconftest.Nginx(t, map[string][]byte{"f.bin": data}, "x", "y")
	seen := watch(t, netconftest.CookieValue, netconftest.HeaderValue)
	dir := t.TempDir()
	host := "127.0.0.2"
	cookieFile := func(name, domain string) string {
		p := filepath.Join(dir, name)
		body := "# Netscape HTTP Cookie File\n#HttpOnly_" + domain + "\tFALSE\t/cookie/\tFALSE\t0\t" +
			netconftest.CookieName + "\t" + netconftest.CookieValue + "\n"
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	header := netconftest.HeaderName + ": " + netconftest.HeaderValue
	for _, tc := range []struct {
		name string
		path string
		s    *netconf.Settings
		ok   bool
	}{
		{"cookie", "/cookie/f.bin", &netconf.Settings{NoNetrc: true, CookieFile: cookieFile("c1", host)}, true},
		{"no cookie", "/cookie/f.bin", nil, false},
		{"a cookie for another host", "/cookie/f.bin", &netconf.Settings{NoNetrc: true, CookieFile: cookieFile("c2", "127.0.0.3")}, false},
		{"header", "/header/f.bin", &netconf.Settings{NoNetrc: true, Headers: []string{header}, Links: []string{origin.URL + "/header/f.bin"}}, true},
		{"header for every host", "/header/f.bin", &netconf.Settings{NoNetrc: true, Headers: []string{header}, AllHosts: true}, true},
		{"header for another host's link", "/header/f.bin", &netconf.Settings{NoNetrc: true, Headers: []string{header}, Links: []string{"http://127.0.0.3/f.bin"}}, false},
		{"no header", "/header/f.bin", nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := transport.Options{Size: int64(len(data))}
			if tc.s != nil {
				o.Session = open(t, *tc.s)
				seen.add(o.Session, *tc.s, o.Session.Cookies())
			}
			src := newHTTP(t, origin.URL+tc.path, o)
			got, err := readAll(context.Background(), src, 100, 1000)
			seen.add(err)
			switch {
			case tc.ok && (err != nil || !bytes.Equal(got, data[100:1100])):
				t.Fatalf("read: %v", err)
			case !tc.ok && !errors.Is(err, transport.ErrDenied):
				t.Fatalf("%v, want ErrDenied (403)", err)
			}
		})
	}
}

// BenchmarkThroughProxies reads 8 MiB ranges from nginx directly and
// through each proxy, to show what a proxy costs on loopback.
func BenchmarkThroughProxies(b *testing.B) {
	data := testkit.Data(8 << 20)
	origin := netconftest.Nginx(b, map[string][]byte{"f.bin": data}, "u", "p")
	tiny := netconftest.Tinyproxy(b, "", "")
	socks := netconftest.Microsocks(b, "", "")
	for _, tc := range []struct {
		name string
		p    netconf.Proxy
	}{
		{"direct", netconf.Proxy{Mode: netconf.ProxyNone}},
		{"tinyproxy", netconf.Proxy{Mode: netconf.ProxyManual, URL: tiny}},
		{"microsocks", netconf.Proxy{Mode: netconf.ProxyManual, URL: "socks5h://" + socks}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			n, err := netconf.NewNetwork(tc.p)
			if err != nil {
				b.Fatal(err)
			}
			defer n.HTTPClient().CloseIdleConnections()
			src, err := transport.NewHTTP(origin.URL+"/open/f.bin", transport.Options{Size: int64(len(data)), Network: n})
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				rc, err := src.ReadRange(context.Background(), 0, int64(len(data)))
				if err != nil {
					b.Fatal(err)
				}
				if _, err := io.Copy(io.Discard, rc); err != nil {
					b.Fatal(err)
				}
				rc.Close()
			}
		})
	}
}
