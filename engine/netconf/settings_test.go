package netconf

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestNetrc(t *testing.T) {
	text := `# a comment with password nothere
machine files.example.com login alice password "pa ss\"word"
machine OTHER.example login bob
  password b0b account acct
macdef init
cd /pub
bin

machine files.example.com login second password ignored
default login anon password guest
`
	n, err := parseNetrc("netrc", text)
	if err != nil {
		t.Fatal(err)
	}
	for host, want := range map[string]Login{
		"files.example.com": {"alice", `pa ss"word`},
		"other.example":     {"bob", "b0b"},
		"elsewhere":         {"anon", "guest"},
	} {
		if got, ok := n.find(host); !ok || got != want {
			t.Errorf("%s: %#v, want %#v", host, got, want)
		}
	}
	for _, bad := range []string{
		"machine h login u password",
		"login u password p",
		"machine h login u password \"open",
		"machine h lgin u",
	} {
		_, err := parseNetrc("netrc", bad)
		if err == nil {
			t.Errorf("%q: no error", bad)
		} else if strings.Contains(err.Error(), "p\"") || strings.Contains(err.Error(), "open") {
			t.Errorf("%q: the error quotes the file: %v", bad, err)
		}
	}
}

func TestCookiesTxt(t *testing.T) {
	dir := t.TempDir()
	future := time.Now().Add(time.Hour).Unix()
	file := filepath.Join(dir, "cookies.txt")
	body := fmt.Sprintf(`# Netscape HTTP Cookie File
.example.com	TRUE	/	FALSE	0	site	all
host.example.com	FALSE	/dl	FALSE	%d	path	dl-only
#HttpOnly_.example.com	TRUE	/	TRUE	%d	sec	secure-only
old.example.com	FALSE	/	FALSE	1000	gone	x
example.com	TRUE	/	FALSE	0	bad	has"quote
com	TRUE	/	FALSE	0	wide	public-suffix
127.0.0.2	FALSE	/	FALSE	0	ip	v
broken line
`, future, future)
	if err := os.WriteFile(file, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	jar := newJar()
	n, err := LoadCookies(jar, file, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	// "com" is taken as a host-only cookie for the host "com": it goes
	// nowhere else.
	if n.Loaded != 5 || n.Expired != 1 || n.Skipped != 2 {
		t.Errorf("count %+v, want 5 loaded, 1 expired, 2 skipped", n)
	}
	sent := func(raw string) string {
		u, _ := url.Parse(raw)
		var names []string
		for _, c := range jar.Cookies(u) {
			names = append(names, c.Name)
		}
		return strings.Join(names, ",")
	}
	for raw, want := range map[string]string{
		"http://example.com/":              "site",
		"http://www.example.com/f":         "site",
		"https://www.example.com/f":        "site,sec",
		"http://host.example.com/dl/f.iso": "path,site",
		"http://host.example.com/other":    "site",
		"http://sub.host.example.com/dl/":  "site",
		"http://example.org/":              "",
		"http://127.0.0.2:8080/x":          "ip",
		"http://127.0.0.3/x":               "",
	} {
		if got := sent(raw); got != want {
			t.Errorf("%s gets %q, want %q", raw, got, want)
		}
	}
	if err := os.WriteFile(file, []byte("<html>not cookies</html>\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadCookies(newJar(), file, time.Now()); err == nil {
		t.Error("a file with no cookie line loaded without an error")
	}
}

func TestParseHeader(t *testing.T) {
	for line, want := range map[string]string{
		"X-Token: abc":            "X-Token=abc",
		"x-api-key:  k e y  ":     "X-Api-Key=k e y",
		"Cookie: a=1; b=2":        "Cookie=a=1; b=2",
		"Authorization: Bearer x": "Authorization=Bearer x",
	} {
		n, v, err := ParseHeader(line)
		if err != nil || n+"="+v != want {
			t.Errorf("%q: %s=%s, %v; want %s", line, n, v, err, want)
		}
	}
	for _, line := range []string{"no colon sekrit", "Bad Name: x", "Empty:", "Range: bytes=0-1", "host: h", "X: a\nb"} {
		_, _, err := ParseHeader(line)
		if !errors.Is(err, ErrSettings) {
			t.Errorf("%q: %v, want ErrSettings", line, err)
		}
		if err != nil && strings.Contains(err.Error(), "sekrit") {
			t.Errorf("the error shows what may be a secret: %v", err)
		}
	}
}

func TestSettingsScopeAndSecrets(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	if err := os.WriteFile(filepath.Join(home, ".netrc"), []byte("machine mirror.example login m password netrc-pw\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := Settings{
		HTTPUser: "u", HTTPPasswd: "flag-pw", FTPUser: "f", FTPPasswd: "ftp-pw",
		Headers: []string{"X-Token: header-secret"}, Referer: "http://r.example/?token=ref-secret",
		Links: []string{"https://origin.example/f.iso"},
	}
	ss, err := s.Open()
	if err != nil {
		t.Fatal(err)
	}
	for _, shown := range []string{s.String(), fmt.Sprintf("%v %+v %#v", s, s, s), ss.String()} {
		for _, secret := range []string{"flag-pw", "ftp-pw", "header-secret", "ref-secret"} {
			if strings.Contains(shown, secret) {
				t.Errorf("%q shows %s", shown, secret)
			}
		}
	}
	at := func(raw string) *url.URL { u, _ := url.Parse(raw); return u }
	if l, ok := ss.HTTPLogin(at("https://origin.example/f.iso")); !ok || l.User != "u" {
		t.Errorf("origin: login %v %v, want the flags'", l, ok)
	}
	if l, ok := ss.HTTPLogin(at("https://mirror.example/f.iso")); !ok || l.User != "m" {
		t.Errorf("mirror: login %v %v, want .netrc's", l, ok)
	}
	if _, ok := ss.HTTPLogin(at("https://other.example/f.iso")); ok {
		t.Error("a host neither the links nor .netrc name got a login")
	}
	if l, ok := ss.FTPLogin(at("ftp://origin.example/f")); !ok || l.Password != "ftp-pw" {
		t.Errorf("ftp origin: %v %v", l, ok)
	}
	s.NoNetrc = true
	ss, err = s.Open()
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := ss.HTTPLogin(at("https://mirror.example/f.iso")); ok {
		t.Error("NoNetrc still read .netrc")
	}
	s.NoNetrc, s.NetrcFile = false, filepath.Join(home, "missing")
	if _, err := s.Open(); err == nil {
		t.Error("a named .netrc that is missing opened without an error")
	}
	if _, err := (Settings{HTTPPasswd: "x"}).Open(); !errors.Is(err, ErrSettings) {
		t.Errorf("a password without a user: %v", err)
	}
}

func TestSplitJoin(t *testing.T) {
	s := Settings{HTTPUser: "u", HTTPPasswd: "hp", FTPUser: "f", FTPPasswd: "fp",
		Headers: []string{"Authorization: Bearer tok"}, CookieFile: "/c.txt", Links: []string{"http://h/"}}
	if got, want := s.String(), "{http-user=u http-passwd=*** ftp-user=f ftp-passwd=*** cookies=/c.txt header=Authorization: ***}"; got != want {
		t.Errorf("String() = %s, want %s", got, want)
	}
	pub, sec := s.Split()
	if pub.HTTPPasswd != "" || pub.FTPPasswd != "" || pub.Headers != nil || pub.HTTPUser != "u" || pub.CookieFile != "/c.txt" {
		t.Errorf("public half %#v keeps a secret or loses a setting", pub)
	}
	if shown := fmt.Sprintf("%v %+v %#v", sec, sec, sec); strings.Contains(shown, "hp") || strings.Contains(shown, "tok") {
		t.Errorf("the secret shows itself: %s", shown)
	}
	back := pub.Join(sec)
	if back.HTTPPasswd != "hp" || back.FTPPasswd != "fp" || len(back.Headers) != 1 || back.Headers[0] != s.Headers[0] {
		t.Errorf("Join gave %d headers", len(back.Headers))
	}
}

// TestSplitProxyLogin: a login in the job's proxy URL leaves the public
// half for ProxyUser and the secret, with or without a scheme, and an
// explicit user wins over the URL's; the String of either half never
// shows the password.
func TestSplitProxyLogin(t *testing.T) {
	for _, c := range []struct {
		in            Settings
		proxy, user   string
		wantSecretPwd string
	}{
		{Settings{Proxy: "http://ann:pw1@proxy.example:3128"}, "http://proxy.example:3128", "ann", "pw1"},
		{Settings{Proxy: "ann:pw2@proxy.example"}, "proxy.example", "ann", "pw2"},
		{Settings{Proxy: "http://me%40home:p%3Aw5@proxy.example"}, "http://proxy.example", "me@home", "p:w5"},
		{Settings{Proxy: "socks5h://x:y@s.example:1080", ProxyUser: "bob", ProxyPasswd: "pw3"}, "socks5h://s.example:1080", "bob", "pw3"},
		{Settings{Proxy: "https://proxy.example", ProxyUser: "bob", ProxyPasswd: "pw4"}, "https://proxy.example", "bob", "pw4"},
	} {
		pub, sec := c.in.Split()
		if pub.Proxy != c.proxy || pub.ProxyUser != c.user || pub.ProxyPasswd != "" || sec.ProxyPasswd != c.wantSecretPwd {
			t.Errorf("Split of %q: public %q user %q, secret %q; want %q, %q, %q", c.in.Proxy, pub.Proxy, pub.ProxyUser, sec.ProxyPasswd, c.proxy, c.user, c.wantSecretPwd)
		}
		if shown := fmt.Sprint(c.in, pub, sec); strings.Contains(shown, c.wantSecretPwd) || strings.Contains(shown, ":y@") {
			t.Errorf("a password shows: %s", shown)
		}
		if back := pub.Join(sec); back.ProxyPasswd != c.wantSecretPwd {
			t.Errorf("Join lost the proxy password of %q", c.in.Proxy)
		}
	}
	if _, err := (Settings{ProxyUser: "u"}).Open(); !errors.Is(err, ErrSettings) {
		t.Errorf("a proxy user without a proxy opened: %v", err)
	}
	if _, err := (Settings{Proxy: "ftp://p.example"}).Open(); !errors.Is(err, ErrProxyURL) {
		t.Errorf("an ftp:// proxy opened: %v", err)
	}
}
