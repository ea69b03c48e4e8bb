// Package netconftest starts real servers from Debian packages for the
// network tests: an HTTP proxy (tinyproxy), a SOCKS5 proxy (microsocks),
// an origin with logins, cookie- and header-guarded places (nginx) and
// one with HTTP Digest logins (lighttpd). Each starter skips the test with
// a message when its program is not installed, and stops the server when
// the test ends.
package netconftest

import (
	"context"
	"crypto/sha1"
	"encoding/base64"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// need returns the path of a program, or skips the test.
func need(t testing.TB, prog, pkg string) string {
	t.Helper()
	for _, dir := range []string{"", "/usr/sbin/", "/usr/bin/"} {
		if p, err := exec.LookPath(dir + prog); err == nil {
			return p
		}
	}
	if runtime.GOOS == "windows" {
		t.Skipf("needs %s, a Linux server (Debian package %s); a test binary under Wine finds only Windows programs", prog, pkg)
	}
	t.Skipf("%s is not installed (Debian package %s): skipping", prog, pkg)
	return ""
}

// freePort finds a port free on host now.
func freePort(t testing.TB, host string) int {
	t.Helper()
	ln, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		t.Fatalf("netconftest: %v", err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// start runs a server in the foreground until the test ends, and waits
// until addr accepts connections.
func start(t testing.TB, addr, logFile string, name string, args ...string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, name, args...)
	out, err := os.Create(logFile + ".out")
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatalf("netconftest: start %s: %v", filepath.Base(name), err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		cancel()
		<-exited
		out.Close()
	})
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(15 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			return
		}
		select {
		case err := <-exited:
			b, _ := os.ReadFile(logFile + ".out")
			l, _ := os.ReadFile(logFile)
			t.Fatalf("netconftest: %s exited (%v):\n%s\n%s", filepath.Base(name), err, b, l)
		case <-deadline:
			t.Fatalf("netconftest: %s does not listen on %s", filepath.Base(name), addr)
		case <-tick.C:
		}
	}
}

// Tinyproxy starts an HTTP proxy on 127.0.0.1 (CONNECT to any port
// allowed) and returns its URL, with user:pass@ when user is set (the
// proxy then asks for that login).
func Tinyproxy(t testing.TB, user, pass string) string {
	t.Helper()
	bin := need(t, "tinyproxy", "tinyproxy")
	dir := t.TempDir()
	port := freePort(t, "127.0.0.1")
	logFile := filepath.Join(dir, "tinyproxy.log")
	conf := fmt.Sprintf("Port %d\nListen 127.0.0.1\nTimeout 60\nMaxClients 50\nLogFile %q\nLogLevel Info\n", port, logFile)
	if os.Geteuid() == 0 {
		conf += "User root\nGroup root\n"
	}
	if user != "" {
		conf += fmt.Sprintf("BasicAuth %s %s\n", user, pass)
	}
	cf := filepath.Join(dir, "tinyproxy.conf")
	if err := os.WriteFile(cf, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	start(t, addr, logFile, bin, "-d", "-c", cf)
	u := &url.URL{Scheme: "http", Host: addr}
	if user != "" {
		u.User = url.UserPassword(user, pass)
	}
	return u.String()
}

// Microsocks starts a SOCKS5 proxy on 127.0.0.1 and returns its address;
// with user set it asks for that login.
func Microsocks(t testing.TB, user, pass string) string {
	t.Helper()
	bin := need(t, "microsocks", "microsocks")
	dir := t.TempDir()
	port := freePort(t, "127.0.0.1")
	args := []string{"-i", "127.0.0.1", "-p", fmt.Sprint(port)}
	if user != "" {
		args = append(args, "-u", user, "-P", pass)
	}
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	start(t, addr, filepath.Join(dir, "microsocks.log"), bin, args...)
	return addr
}

// Origin is an nginx web server on 127.0.0.2.
type Origin struct {
	URL string // http://127.0.0.2:PORT, no trailing slash
	Dir string // where its logs are
}

// Guard values the cookie- and header-guarded places of an Origin ask for.
const (
	CookieName  = "session"
	CookieValue = "opensesame-cookie"
	HeaderName  = "X-Braid-Token"
	HeaderValue = "letmein-header"
)

// Nginx starts nginx on 127.0.0.2 serving every file at four places:
// /open/NAME for anyone, /basic/NAME behind auth_basic (user, pass),
// /cookie/NAME only with the cookie CookieName=CookieValue, and
// /header/NAME only with the header HeaderName: HeaderValue; the last two
// answer 403 otherwise.
func Nginx(t testing.TB, files map[string][]byte, user, pass string) *Origin {
	t.Helper()
	bin := need(t, "nginx", "nginx")
	dir := t.TempDir()
	for _, place := range []string{"open", "basic", "cookie", "header"} {
		putFiles(t, filepath.Join(dir, "www"), place, files)
	}
	sum := sha1.Sum([]byte(pass))
	if err := os.WriteFile(filepath.Join(dir, "htpasswd"),
		[]byte(user+":{SHA}"+base64.StdEncoding.EncodeToString(sum[:])+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	addr := runNginx(t, bin, dir, "", fmt.Sprintf(`		location /basic/ {
			auth_basic "braid";
			auth_basic_user_file %[1]s/htpasswd;
		}
		location /cookie/ {
			if ($cookie_%[2]s != "%[3]s") { return 403; }
		}
		location /header/ {
			if ($http_%[4]s != "%[5]s") { return 403; }
		}
`, dir, CookieName, CookieValue, strings.ReplaceAll(strings.ToLower(HeaderName), "-", "_"), HeaderValue))
	return &Origin{URL: "http://" + addr, Dir: dir}
}

// Lighttpd starts lighttpd on 127.0.0.2 serving files at /digest/NAME
// behind an HTTP Digest login (user, pass; realm "braid") and returns the
// server's URL.
func Lighttpd(t testing.TB, files map[string][]byte, user, pass string) string {
	t.Helper()
	bin := need(t, "lighttpd", "lighttpd")
	dir := t.TempDir()
	www := filepath.Join(dir, "www")
	putFiles(t, www, "digest", files)
	if err := os.WriteFile(filepath.Join(dir, "users"), []byte(user+":"+pass+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	port := freePort(t, "127.0.0.2")
	logFile := filepath.Join(dir, "error.log")
	conf := fmt.Sprintf(`server.document-root = %q
server.bind = "127.0.0.2"
server.port = %d
server.errorlog = %q
server.modules = ("mod_auth", "mod_authn_file")
auth.backend = "plain"
auth.backend.plain.userfile = %q
auth.require = ("/digest/" => ("method" => "digest", "realm" => "braid", "require" => "valid-user"))
`, www, port, logFile, filepath.Join(dir, "users"))
	cf := filepath.Join(dir, "lighttpd.conf")
	if err := os.WriteFile(cf, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	addr := fmt.Sprintf("127.0.0.2:%d", port)
	start(t, addr, logFile, bin, "-D", "-f", cf)
	return "http://" + addr
}

// OnlyTo returns a dial function that connects only to the addresses
// given (the proxies) and refuses every other: a test that a server was
// reached through a proxy and never directly.
func OnlyTo(allowed ...string) func(ctx context.Context, network, addr string) (net.Conn, error) {
	ok := map[string]bool{}
	for _, a := range allowed {
		ok[a] = true
	}
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		if !ok[addr] {
			return nil, fmt.Errorf("netconftest: a direct connection to %s was refused: it must go through the proxy", addr)
		}
		var d net.Dialer
		return d.DialContext(ctx, network, addr)
	}
}
