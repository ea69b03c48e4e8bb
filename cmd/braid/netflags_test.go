package main

import (
	"bytes"
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"braid/engine/mirrortest"
	"braid/engine/netconf/netconftest"
	"braid/internal/testkit"
)

// getIn runs braid get with its state in state and returns what it said.
func getIn(t *testing.T, state string, args ...string) (code int, out string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code = cmdGet(context.Background(), append([]string{"--state", state}, args...), &stdout, &stderr)
	return code, stdout.String() + stderr.String()
}

// assertNoSecret fails when secret is in what get printed or anywhere in
// its state folder (the queue's database and its journal, the log).
func assertNoSecret(t *testing.T, secret, printed, state string) {
	t.Helper()
	if strings.Contains(printed, secret) {
		t.Errorf("the output shows the secret: %q", printed)
	}
	testkit.NoSecretIn(t, state, secret)
}

// Logins against nginx's auth_basic: from the flags, from the link, from
// .netrc; a wrong one fails with a sentence that says so. The password is
// never in the output nor in the state folder.
func TestGetLogins(t *testing.T) {
	t.Parallel()
	const user, pass = "alice", "S3cret-pa55"
	data := mirrortest.Bytes(200<<10, 11)
	o := netconftest.Nginx(t, map[string][]byte{"f.bin": data}, user, pass)
	host := strings.TrimPrefix(o.URL, "http://")
	netrc := filepath.Join(t.TempDir(), "netrc")
	if err := os.WriteFile(netrc, []byte("machine 127.0.0.2 login "+user+" password "+pass+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"flags", []string{"--no-netrc", "--http-user", user, "--http-passwd", pass, o.URL + "/basic/f.bin"}},
		{"link", []string{"--no-netrc", "http://" + user + ":" + pass + "@" + host + "/basic/f.bin"}},
		{".netrc", []string{"--netrc-file", netrc, o.URL + "/basic/f.bin"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			state, dir := t.TempDir(), t.TempDir()
			code, out := getIn(t, state, append([]string{"-d", dir}, tc.args...)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, out)
			}
			if got, _ := os.ReadFile(filepath.Join(dir, "f.bin")); !bytes.Equal(got, data) {
				t.Fatal("f.bin does not hold the file")
			}
			assertNoSecret(t, pass, out, state)
		})
	}
	t.Run("refused", func(t *testing.T) {
		state := t.TempDir()
		code, out := getIn(t, state, "--no-netrc", "--retry-for", "1s", "-d", t.TempDir(), "--http-user", user, "--http-passwd", "wrong-"+pass, o.URL+"/basic/f.bin")
		if code != 1 || !strings.Contains(out, "login was refused") || strings.Contains(out, "give one") {
			t.Fatalf("exit %d, %q: want a failure that says the login was refused", code, out)
		}
		assertNoSecret(t, "wrong-"+pass, out, state)
	})
	t.Run("none given", func(t *testing.T) {
		code, out := getIn(t, t.TempDir(), "--no-netrc", "--retry-for", "1s", "-d", t.TempDir(), o.URL+"/basic/f.bin")
		if code != 1 || !strings.Contains(out, "braid get: "+o.URL+"/basic/f.bin: ") ||
			!strings.Contains(out, "the server asks for a login (401 Unauthorized); --http-user and --http-passwd-file give one\n") {
			t.Fatalf("exit %d, %q: want a failure that says the server asks for a login, and how to give one", code, out)
		}
	})
}

// A cookie-guarded and a header-guarded place: cookies from a Netscape
// cookies.txt and a --header open them; without, the server refuses.
func TestGetCookiesAndHeaders(t *testing.T) {
	t.Parallel()
	data := mirrortest.Bytes(64<<10, 12)
	o := netconftest.Nginx(t, map[string][]byte{"f.bin": data}, "u", "p")
	cookies := filepath.Join(t.TempDir(), "cookies.txt")
	line := "127.0.0.2\tFALSE\t/\tFALSE\t0\t" + netconftest.CookieName + "\t" + netconftest.CookieValue + "\n"
	if err := os.WriteFile(cookies, []byte("# Netscape HTTP Cookie File\n"+line), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"cookie", []string{"--load-cookies", cookies, o.URL + "/cookie/f.bin"}},
		{"header", []string{"--header", netconftest.HeaderName + ": " + netconftest.HeaderValue, o.URL + "/header/f.bin"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			state, dir := t.TempDir(), t.TempDir()
			if code, out := getIn(t, state, append([]string{"-d", dir}, tc.args...)...); code != 0 {
				t.Fatalf("exit %d: %s", code, out)
			}
			if got, _ := os.ReadFile(filepath.Join(dir, "f.bin")); !bytes.Equal(got, data) {
				t.Fatal("f.bin does not hold the file")
			}
			assertNoSecret(t, netconftest.CookieValue, "", state)
			assertNoSecret(t, netconftest.HeaderValue, "", state)
		})
	}
	t.Run("without", func(t *testing.T) {
		code, out := getIn(t, t.TempDir(), "-d", t.TempDir(), o.URL+"/cookie/f.bin")
		if code != 1 {
			t.Fatalf("exit %d without the cookie: %s", code, out)
		}
	})
}

// --all-proxy sends the download through a real proxy (tinyproxy, and
// microsocks with socks5h), and a proxy that is not there fails the get
// though the origin itself could be reached: nothing goes around it.
func TestGetThroughProxy(t *testing.T) {
	t.Parallel()
	data := mirrortest.Bytes(300<<10, 13)
	o := netconftest.Nginx(t, map[string][]byte{"f.bin": data}, "u", "p")
	for _, tc := range []struct{ name, proxy string }{
		{"http", netconftest.Tinyproxy(t, "", "")},
		{"socks5h", "socks5h://" + netconftest.Microsocks(t, "", "")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if code, out := getIn(t, t.TempDir(), "--retry-for", "5s", "-d", dir, "--all-proxy", tc.proxy, o.URL+"/open/f.bin"); code != 0 {
				t.Fatalf("exit %d: %s", code, out)
			}
			if got, _ := os.ReadFile(filepath.Join(dir, "f.bin")); !bytes.Equal(got, data) {
				t.Fatal("f.bin does not hold the file")
			}
		})
	}
	t.Run("no proxy there", func(t *testing.T) {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		gone := l.Addr().String()
		l.Close()
		code, out := getIn(t, t.TempDir(), "--retry-for", "1s", "-d", t.TempDir(), "--all-proxy", "http://"+gone, o.URL+"/open/f.bin")
		if code != 1 {
			t.Fatalf("exit %d through a proxy that is not there: %s", code, out)
		}
	})
	t.Run("bad proxy URL", func(t *testing.T) {
		code, out := getIn(t, t.TempDir(), "--all-proxy", "gopher://u:hidden-pw@x", o.URL+"/open/f.bin")
		if code != 2 || strings.Contains(out, "hidden-pw") {
			t.Fatalf("exit %d, %q: want a usage error that hides the password", code, out)
		}
	})
}
