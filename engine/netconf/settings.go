package netconf

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/cookiejar"
	"net/textproto"
	"net/url"
	"os"
	"runtime"
	"strings"
	"time"

	"golang.org/x/net/http/httpguts"
)

// Settings are one job's manners towards servers: logins, cookies and
// headers, as `--http-user`, `--load-cookies`, `--header` and the rest say.
// A queue keeps them with the job; Open makes a Session of them.
//
// The password fields are secrets: String leaves them out, and a store
// must not keep them in clear.
type Settings struct {
	// HTTPUser and HTTPPasswd are the login for HTTP(S) servers of Links
	// that ask for one (401), unless a link carries its own.
	HTTPUser, HTTPPasswd string
	// FTPUser and FTPPasswd are the login for FTP servers of Links, unless
	// a link carries its own; without either, FTP logs in anonymously.
	FTPUser, FTPPasswd string
	// NetrcFile is the .netrc to take logins from for any server it
	// names; "" is the user's, which may be missing: $HOME/.netrc, and on
	// Windows the first of _netrc and .netrc in %HOME%, then in
	// %USERPROFILE% (netrcPaths). NoNetrc reads none.
	NetrcFile string
	NoNetrc   bool
	// CookieFile is a Netscape cookies.txt to send cookies from (see
	// LoadCookies); "" sends none but those the servers set.
	CookieFile string
	// Headers are "Name: value" lines sent with every HTTP request to the
	// hosts of Links. Headers the transfer itself manages (Range, Host,
	// Accept-Encoding, If-Match, Content-Length, Transfer-Encoding,
	// Connection) are refused.
	Headers []string
	// UserAgent, when set, replaces Braid's User-Agent on every request.
	UserAgent string
	// Referer, when set, is sent as it is on every request, in place of
	// the origin's URL that Braid sends to mirrors.
	Referer string
	// Links are the links the settings were given for: Headers and the
	// user and password fields go only to their hosts (a mirror elsewhere
	// gets neither), unless AllHosts. Cookies follow their own domain
	// rules; .netrc logins go to the machine they name.
	Links []string
	// AllHosts sends Headers and the user and password fields to every
	// host of the job, mirrors and redirects included.
	AllHosts bool
	// Proxy, when set, is the job's own proxy for its HTTP(S) and FTP
	// servers (aria2's all-proxy), in place of the Network's: a URL as
	// netconf.Proxy.URL takes it, without a login; ProxyUser and
	// ProxyPasswd are the proxy's login. NoProxy lists the hosts the job
	// reaches directly, in netconf.Proxy.NoProxy's syntax.
	Proxy, ProxyUser, ProxyPasswd string
	NoProxy                       string
}

// String describes the settings without any password, cookie or header
// value.
func (s Settings) String() string {
	var parts []string
	add := func(name, v string, secret bool) {
		if v != "" && secret {
			v = "***"
		}
		if v != "" {
			parts = append(parts, name+"="+v)
		}
	}
	add("http-user", s.HTTPUser, false)
	add("http-passwd", s.HTTPPasswd, true)
	add("ftp-user", s.FTPUser, false)
	add("ftp-passwd", s.FTPPasswd, true)
	switch {
	case s.NoNetrc:
		parts = append(parts, "no-netrc")
	case s.NetrcFile != "":
		add("netrc-file", s.NetrcFile, false)
	}
	add("cookies", s.CookieFile, false)
	for _, h := range s.Headers {
		name, _, _ := strings.Cut(h, ":")
		add("header", strings.TrimSpace(name)+": ***", false)
	}
	add("user-agent", s.UserAgent, false)
	add("referer", s.Referer, true)
	if s.AllHosts {
		parts = append(parts, "all-hosts")
	}
	add("all-proxy", redactProxy(s.Proxy), false)
	add("all-proxy-user", s.ProxyUser, false)
	add("all-proxy-passwd", s.ProxyPasswd, true)
	add("no-proxy", s.NoProxy, false)
	return "{" + strings.Join(parts, " ") + "}"
}

// Empty reports whether s sets nothing but Links.
func (s Settings) Empty() bool {
	pub, sec := s.Split()
	return pub.String() == "{}" && sec.Empty()
}

// GoString is String, so %#v shows no secret either.
func (s Settings) GoString() string { return "netconf.Settings" + s.String() }

// Secret is the part of Settings a store must not keep in clear: the
// passwords and the headers (which often carry a token or a session
// cookie). A queue keeps Settings.Split's first half with the job and
// this half in the system's keyring, or only for the session.
type Secret struct {
	HTTPPasswd  string   `json:"http_passwd,omitempty"`
	FTPPasswd   string   `json:"ftp_passwd,omitempty"`
	ProxyPasswd string   `json:"proxy_passwd,omitempty"`
	Headers     []string `json:"headers,omitempty"`
}

// String shows how much the secret holds, not what.
func (s Secret) String() string {
	return fmt.Sprintf("{%d passwords, %d headers}", s.passwords(), len(s.Headers))
}

// Empty reports whether the secret holds nothing.
func (s Secret) Empty() bool { return s.passwords() == 0 && len(s.Headers) == 0 }

func (s Secret) passwords() int {
	return btoi(s.HTTPPasswd != "") + btoi(s.FTPPasswd != "") + btoi(s.ProxyPasswd != "")
}

// GoString is String, so that %#v shows no secret either.
func (s Secret) GoString() string { return "netconf.Secret" + s.String() }

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Split returns the settings without their secrets, and the secrets. A
// login in the Proxy URL becomes ProxyUser and ProxyPasswd first (unless
// they are set), so that no password stays in the first half.
func (s Settings) Split() (Settings, Secret) {
	if scheme, login, rest, ok := cutProxyLogin(s.Proxy); ok {
		user, pass, _ := strings.Cut(login, ":")
		if u, err := url.PathUnescape(user); err == nil {
			user = u // as written in a URL: "me%40home" is me@home
		}
		if p, err := url.PathUnescape(pass); err == nil {
			pass = p
		}
		if s.ProxyUser == "" {
			s.ProxyUser, s.ProxyPasswd = user, pass
		}
		s.Proxy = scheme + rest
	}
	sec := Secret{HTTPPasswd: s.HTTPPasswd, FTPPasswd: s.FTPPasswd, ProxyPasswd: s.ProxyPasswd, Headers: append([]string(nil), s.Headers...)}
	s.HTTPPasswd, s.FTPPasswd, s.ProxyPasswd, s.Headers = "", "", "", nil
	s.Links = append([]string(nil), s.Links...)
	return s, sec
}

// Join puts secrets split off by Split back.
func (s Settings) Join(sec Secret) Settings {
	s.HTTPPasswd, s.FTPPasswd, s.ProxyPasswd = sec.HTTPPasswd, sec.FTPPasswd, sec.ProxyPasswd
	s.Headers = append([]string(nil), sec.Headers...)
	return s
}

// ErrSettings is wrapped by the errors of settings that cannot be used.
var ErrSettings = errors.New("unusable network settings")

// managed are the header fields the transfer sets itself.
var managed = map[string]bool{
	"Range": true, "Host": true, "Accept-Encoding": true, "If-Match": true,
	"Content-Length": true, "Transfer-Encoding": true, "Connection": true,
	"Te": true, "Upgrade": true, "Trailer": true, "Keep-Alive": true,
	"Proxy-Connection": true, "Want-Digest": true, "If-Range": true,
}

// ParseHeader reads a "Name: value" line as `--header` takes it. Its
// error shows the name, never the value.
func ParseHeader(line string) (name, value string, err error) {
	name, value, ok := strings.Cut(line, ":")
	name = strings.TrimSpace(name)
	value = strings.TrimSpace(value)
	switch {
	case !ok:
		return "", "", fmt.Errorf("a header without a colon (not \"Name: value\"): %w", ErrSettings)
	case !httpguts.ValidHeaderFieldName(name):
		return "", "", fmt.Errorf("header name %q is not valid: %w", shortName(name), ErrSettings)
	case value == "":
		return "", "", fmt.Errorf("header %s has no value: %w", name, ErrSettings)
	case !httpguts.ValidHeaderFieldValue(value):
		return "", "", fmt.Errorf("header %s: its value holds characters a header cannot: %w", name, ErrSettings)
	}
	name = textproto.CanonicalMIMEHeaderKey(name)
	if managed[name] {
		return "", "", fmt.Errorf("header %s is set by the download itself and cannot be given: %w", name, ErrSettings)
	}
	return name, value, nil
}

// shortName is a header name fit to show: a line without a colon may be a
// pasted secret, so only its first characters.
func shortName(s string) string {
	if len(s) > 20 {
		return s[:20] + "…"
	}
	return s
}

// Session is Settings made ready: the .netrc and cookies read, the
// headers parsed. It is safe for concurrent use.
type Session struct {
	s       Settings
	header  http.Header
	hosts   map[string]bool // lower-case host names of Links
	netrc   *netrc
	jar     *cookiejar.Jar
	cookies CookieCount
	net     *Network // the job's own proxy route; nil: the Network's
}

// Open reads the .netrc and the cookie file and checks the headers. A
// missing .netrc of the user's is no error; a missing file that was named
// is.
func (s Settings) Open() (*Session, error) {
	ss := &Session{s: s, header: http.Header{}, hosts: map[string]bool{}, jar: newJar()}
	if s.HTTPPasswd != "" && s.HTTPUser == "" {
		return nil, fmt.Errorf("an HTTP password without a user name: %w", ErrSettings)
	}
	if s.FTPPasswd != "" && s.FTPUser == "" {
		return nil, fmt.Errorf("an FTP password without a user name: %w", ErrSettings)
	}
	for _, h := range s.Headers {
		name, value, err := ParseHeader(h)
		if err != nil {
			return nil, err
		}
		ss.header.Add(name, value)
	}
	if s.UserAgent != "" && !httpguts.ValidHeaderFieldValue(s.UserAgent) {
		return nil, fmt.Errorf("the user agent holds characters a header cannot: %w", ErrSettings)
	}
	if s.Referer != "" && !httpguts.ValidHeaderFieldValue(s.Referer) {
		return nil, fmt.Errorf("the referer holds characters a header cannot: %w", ErrSettings)
	}
	for _, l := range s.Links {
		if u, err := url.Parse(l); err == nil && u.Hostname() != "" {
			ss.hosts[strings.ToLower(u.Hostname())] = true
		}
	}
	if !s.NoNetrc {
		paths, named := []string{s.NetrcFile}, s.NetrcFile != ""
		if !named {
			paths = netrcPaths(runtime.GOOS, os.Getenv)
		}
		for _, path := range paths {
			n, err := readNetrc(path)
			if err == nil {
				ss.netrc = n
				break
			}
			if named || !errors.Is(err, os.ErrNotExist) {
				return nil, fmt.Errorf(".netrc: %w", err)
			}
		}
	}
	if s.CookieFile != "" {
		n, err := LoadCookies(ss.jar, s.CookieFile, time.Now())
		if err != nil {
			return nil, fmt.Errorf("cookies: %w", err)
		}
		ss.cookies = n
	}
	if err := ss.openProxy(); err != nil {
		return nil, err
	}
	return ss, nil
}

// openProxy makes the route of the job's own proxy, when it has one.
func (ss *Session) openProxy() error {
	s := ss.s
	if s.Proxy == "" {
		if s.ProxyUser != "" || s.ProxyPasswd != "" || s.NoProxy != "" {
			return fmt.Errorf("a proxy login or no-proxy list without a proxy (all-proxy): %w", ErrSettings)
		}
		return nil
	}
	if s.ProxyPasswd != "" && s.ProxyUser == "" {
		return fmt.Errorf("a proxy password without a user name: %w", ErrSettings)
	}
	u, err := parseProxy(s.Proxy)
	if err != nil {
		return err
	}
	if s.ProxyUser != "" {
		u.User = url.UserPassword(s.ProxyUser, s.ProxyPasswd)
	}
	ss.net, err = NewNetwork(Proxy{Mode: ProxyManual, URL: u.String(), NoProxy: s.NoProxy})
	return err
}

// Network is the route of the job's own proxy (Settings.Proxy), or nil
// when it has none and takes the Network of the process.
func (ss *Session) Network() *Network {
	if ss == nil {
		return nil
	}
	return ss.net
}

// Settings returns the settings the session was opened with.
func (ss *Session) Settings() Settings { return ss.s }

// Cookies says what the cookie file held.
func (ss *Session) Cookies() CookieCount { return ss.cookies }

// String describes the session's settings, without secrets.
func (ss *Session) String() string { return ss.s.String() }

// GoString is String, so that %#v shows no secret either.
func (ss *Session) GoString() string { return "netconf.Session" + ss.s.String() }

// forHost reports whether the per-link settings (headers, user and
// password fields) go to host.
func (ss *Session) forHost(host string) bool {
	return ss.s.AllHosts || ss.hosts[strings.ToLower(host)]
}

// HTTPLogin is the login the job gives an HTTP(S) server at u that asks
// for one: the user and password fields for a host of Links, else the
// .netrc entry for u's host. A link's own credentials come before both;
// the transport asks for them first.
func (ss *Session) HTTPLogin(u *url.URL) (Login, bool) {
	if ss == nil {
		return Login{}, false
	}
	if ss.s.HTTPUser != "" && ss.forHost(u.Hostname()) {
		return Login{User: ss.s.HTTPUser, Password: ss.s.HTTPPasswd}, true
	}
	return ss.netrc.find(u.Hostname())
}

// FTPLogin is the login for the FTP server at u when the link has none:
// the FTP user and password fields for a host of Links, else the .netrc
// entry; false means anonymous.
func (ss *Session) FTPLogin(u *url.URL) (Login, bool) {
	if ss == nil {
		return Login{}, false
	}
	if ss.s.FTPUser != "" && ss.forHost(u.Hostname()) {
		return Login{User: ss.s.FTPUser, Password: ss.s.FTPPasswd}, true
	}
	return ss.netrc.find(u.Hostname())
}

// Client returns base (nil: Default().HTTPClient()) wearing the session:
// its cookies (and those servers set, kept for the session), its headers
// where they belong, its logins given to servers that ask, its own proxy
// when it has one (then base's route is not taken). The returned
// client shares base's connections. A nil session has nothing to add:
// base is returned as it is.
func (ss *Session) Client(base *http.Client) *http.Client {
	if base == nil {
		base = Default().HTTPClient()
	}
	if ss == nil {
		return base
	}
	next := base.Transport
	if ss.net != nil {
		next = ss.net.RoundTripper() // the job's own proxy
	}
	c := *base
	c.Transport = &sessionTransport{next: AnswerLogins(next), ss: ss}
	c.Jar = ss.jar
	return &c
}

// sessionTransport adds a session's headers and logins to each request,
// redirects included, choosing per host.
type sessionTransport struct {
	next http.RoundTripper
	ss   *Session
}

func (t *sessionTransport) CloseIdleConnections() {
	if c, ok := t.next.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

func (t *sessionTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	ss := t.ss
	r := req.Clone(WithLogins(req.Context(), ss.HTTPLogin))
	if ss.forHost(req.URL.Hostname()) {
		for name, values := range ss.header {
			if name == "Cookie" && r.Header.Get("Cookie") != "" {
				// The jar's cookies and the user's go together.
				r.Header.Set("Cookie", r.Header.Get("Cookie")+"; "+strings.Join(values, "; "))
				continue
			}
			r.Header[name] = append([]string(nil), values...)
		}
	}
	if ss.s.UserAgent != "" {
		r.Header.Set("User-Agent", ss.s.UserAgent)
	}
	if ss.s.Referer != "" {
		r.Header.Set("Referer", ss.s.Referer)
	}
	return t.next.RoundTrip(r)
}
