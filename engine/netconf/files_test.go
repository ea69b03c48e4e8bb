package netconf

import (
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"time"
)

// Files written on Windows end their lines with CRLF: a .netrc and a
// cookies.txt read the same with either line end, on every system.
func TestCRLFFiles(t *testing.T) {
	dir := t.TempDir()
	netrcFile := filepath.Join(dir, "netrc")
	if err := os.WriteFile(netrcFile, []byte("# Windows notepad\r\nmachine files.example\r\n  login alice\r\n  password \"pw 1\"\r\n\r\ndefault login anon password guest\r\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cookieFile := filepath.Join(dir, "cookies.txt")
	if err := os.WriteFile(cookieFile, []byte("# Netscape HTTP Cookie File\r\n.files.example\tTRUE\t/\tFALSE\t0\tsession\tabc123\r\n#HttpOnly_files.example\tFALSE\t/dl\tTRUE\t0\ttoken\txyz\r\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ss, err := Settings{NetrcFile: netrcFile, CookieFile: cookieFile}.Open()
	if err != nil {
		t.Fatal(err)
	}
	at := func(raw string) *url.URL { u, _ := url.Parse(raw); return u }
	if l, ok := ss.HTTPLogin(at("https://files.example/f")); !ok || l.User != "alice" || l.Password != "pw 1" {
		t.Errorf("files.example: login %q %v, want alice with the password whole", l.User, ok)
	}
	if l, ok := ss.HTTPLogin(at("https://other.example/f")); !ok || l.User != "anon" || l.Password != "guest" {
		t.Errorf("the default entry: login %q %v, want anon", l.User, ok)
	}
	if n := ss.Cookies(); n.Loaded != 2 {
		t.Errorf("cookies loaded: %+v, want 2", n)
	}
	var got []string
	for _, c := range ss.jar.Cookies(at("https://files.example/dl/f")) {
		got = append(got, c.Name+"="+c.Value)
	}
	slices.Sort(got)
	if want := []string{"session=abc123", "token=xyz"}; !slices.Equal(got, want) {
		t.Errorf("cookies sent to files.example/dl: %q, want %q", got, want)
	}
	if _, err := LoadCookies(newJar(), cookieFile, time.Now()); err != nil {
		t.Errorf("LoadCookies: %v", err)
	}
}

// TestNetrcPaths: where the user's .netrc is looked for, in order.
func TestNetrcPaths(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	j := filepath.Join
	for _, tc := range []struct {
		goos string
		env  map[string]string
		want []string
	}{
		{"linux", map[string]string{"HOME": "/home/u", "USERPROFILE": "/x"}, []string{j("/home/u", ".netrc")}},
		{"windows", map[string]string{"HOME": "h", "USERPROFILE": "p"}, []string{j("h", "_netrc"), j("h", ".netrc"), j("p", "_netrc"), j("p", ".netrc")}},
		{"windows", map[string]string{"USERPROFILE": "p"}, []string{j("p", "_netrc"), j("p", ".netrc")}},
		{"windows", map[string]string{}, nil},
	} {
		if got := netrcPaths(tc.goos, env(tc.env)); !slices.Equal(got, tc.want) {
			t.Errorf("%s %v: %q, want %q", tc.goos, tc.env, got, tc.want)
		}
	}
}

// The user's .netrc is found where the system keeps it: on Windows
// _netrc before .netrc, %HOME% before %USERPROFILE%; elsewhere only
// $HOME/.netrc.
func TestUserNetrc(t *testing.T) {
	home, profile := t.TempDir(), t.TempDir()
	write := func(dir, name, user string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte("machine m.example login "+user+" password p\r\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	login := func() string {
		t.Helper()
		ss, err := Settings{}.Open()
		if err != nil {
			t.Fatal(err)
		}
		l, _ := ss.HTTPLogin(&url.URL{Scheme: "https", Host: "m.example"})
		return l.User
	}
	t.Setenv("HOME", home)
	t.Setenv("USERPROFILE", profile)
	write(profile, "_netrc", "profile-underscore")
	write(profile, ".netrc", "profile-dot")
	if runtime.GOOS != "windows" {
		if u := login(); u != "" {
			t.Errorf("login %q from USERPROFILE, want none outside Windows", u)
		}
		write(home, "_netrc", "home-underscore")
		if u := login(); u != "" {
			t.Errorf("login %q from _netrc, want none outside Windows", u)
		}
		write(home, ".netrc", "home-dot")
		if u := login(); u != "home-dot" {
			t.Errorf("login %q, want $HOME/.netrc's", u)
		}
		return
	}
	if u := login(); u != "profile-underscore" {
		t.Errorf("login %q, want %%USERPROFILE%%\\_netrc's", u)
	}
	write(home, ".netrc", "home-dot")
	if u := login(); u != "home-dot" {
		t.Errorf("login %q, want %%HOME%%\\.netrc's before %%USERPROFILE%%'s", u)
	}
	write(home, "_netrc", "home-underscore")
	if u := login(); u != "home-underscore" {
		t.Errorf("login %q, want %%HOME%%\\_netrc's before .netrc", u)
	}
	t.Setenv("HOME", "")
	if u := login(); u != "profile-underscore" {
		t.Errorf("without HOME: login %q, want %%USERPROFILE%%\\_netrc's", u)
	}
}
