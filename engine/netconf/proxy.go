package netconf

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"os"
	"strings"
)

// ProxyMode says where a Network takes its proxies from.
type ProxyMode int

const (
	// ProxyEnvironment reads the environment as curl does: http_proxy (in
	// lower case only: a CGI server sets HTTP_PROXY from a request header),
	// https_proxy, ftp_proxy, all_proxy and no_proxy in either case, the
	// lower case one first. It is the zero value.
	ProxyEnvironment ProxyMode = iota
	// ProxyNone connects to every server directly, whatever the
	// environment says.
	ProxyNone
	// ProxyManual sends every connection through Proxy.URL, except to the
	// hosts of Proxy.NoProxy.
	ProxyManual
	// ProxySystem is the system's proxy setting: the environment as
	// ProxyEnvironment reads it when it names a proxy, else, on Windows,
	// the Internet Settings of the registry and, on macOS, the system
	// configuration (scutil --proxy); elsewhere the environment only
	// (system.go).
	ProxySystem
)

func (m ProxyMode) String() string {
	switch m {
	case ProxyEnvironment:
		return "environment"
	case ProxyNone:
		return "none"
	case ProxyManual:
		return "manual"
	case ProxySystem:
		return "system"
	}
	return fmt.Sprintf("ProxyMode(%d)", int(m))
}

// Proxy is a proxy setting: what `--all-proxy` and `--no-proxy` say, or the
// window's system / none / manual choice.
type Proxy struct {
	Mode ProxyMode
	// URL is the proxy of ProxyManual: http://, https://, socks5:// (names
	// resolved here) or socks5h:// (names resolved by the proxy), with
	// user:password@ when the proxy asks for a login. Without a scheme it
	// is http://; without a port, 1080 (443 for https://), as in curl.
	URL string
	// NoProxy lists the hosts reached directly, in curl's syntax: names
	// (which match their subdomains too; a leading dot is ignored), IP
	// addresses, CIDR ranges, separated by commas or spaces; "*" alone is
	// every host. In ProxyEnvironment mode a NoProxy that is not empty
	// replaces the no_proxy variable.
	NoProxy string
	// Getenv reads the environment; nil is os.Getenv. Tests set it.
	Getenv func(string) string
	// DirectDial, when set, opens every connection that leaves the
	// machine: to a proxy, or to a server reached directly. nil is a
	// net.Dialer with a 30-second timeout. A test sets it to refuse direct
	// connections to a server that must only be reached through a proxy.
	DirectDial DialFunc
	// TLSClientConfig is used for https servers and https:// proxies; nil
	// trusts the system's certificate authorities. Tests set it; so
	// could an option naming another authority.
	TLSClientConfig *tls.Config
}

// String describes p without the proxy's credentials.
func (p Proxy) String() string {
	s := p.Mode.String()
	if p.URL != "" {
		s += " " + redactProxy(p.URL)
	}
	if p.NoProxy != "" {
		s += " (not for " + p.NoProxy + ")"
	}
	return s
}

// GoString is String, so that %#v shows no password either.
func (p Proxy) GoString() string { return "netconf.Proxy{" + p.String() + "}" }

// ErrProxyURL is wrapped by the errors of a proxy URL Braid cannot use.
var ErrProxyURL = errors.New("unusable proxy URL")

// parseProxy reads a proxy URL as curl does. Its error never holds the
// credentials.
func parseProxy(raw string) (*url.URL, error) {
	raw = strings.TrimSpace(raw)
	shown := redactProxy(raw)
	if !strings.Contains(raw, "://") {
		raw = "http://" + raw
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("proxy %q: %w", shown, ErrProxyURL)
	}
	u.Scheme = strings.ToLower(u.Scheme)
	port := "1080"
	switch u.Scheme {
	case "http", "socks5", "socks5h":
	case "https":
		port = "443"
	default:
		return nil, fmt.Errorf("proxy %q: scheme %q is not supported (http, https, socks5, socks5h are): %w", shown, u.Scheme, ErrProxyURL)
	}
	if u.Hostname() == "" {
		return nil, fmt.Errorf("proxy %q has no host: %w", shown, ErrProxyURL)
	}
	if u.Port() == "" {
		u.Host = net.JoinHostPort(u.Hostname(), port)
	}
	u.Path, u.RawPath, u.RawQuery, u.Fragment = "", "", "", ""
	return u, nil
}

// redactProxy is a proxy URL as it may be shown: without its password.
func redactProxy(raw string) string {
	scheme, _, rest, ok := cutProxyLogin(raw)
	if !ok {
		return raw
	}
	return scheme + "***@" + rest
}

// cutProxyLogin cuts a proxy URL around its login: the scheme with its
// "://" ("" when it has none), the login as written ("user:pass", escaped
// as in a URL) and the rest ("host:port"). ok is false when it has no
// login.
func cutProxyLogin(raw string) (scheme, login, rest string, ok bool) {
	rest = raw
	if i := strings.Index(rest, "://"); i >= 0 {
		scheme, rest = rest[:i+3], rest[i+3:]
	}
	at := strings.LastIndex(rest, "@")
	if at < 0 {
		return "", "", raw, false
	}
	return scheme, rest[:at], rest[at+1:], true
}

// proxies is a proxy setting made ready: the proxy of each scheme, and the
// hosts that go direct.
type proxies struct {
	byScheme map[string]*url.URL // "http", "https", "ftp"
	all      *url.URL            // any other traffic, and schemes without their own
	direct   noProxy
}

// loadProxies reads p and, in ProxyEnvironment mode, the environment.
func loadProxies(p Proxy) (*proxies, error) {
	ps := &proxies{byScheme: map[string]*url.URL{}}
	getenv := p.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	noList := p.NoProxy
	switch p.Mode {
	case ProxyNone:
		return ps, nil
	case ProxyManual:
		if strings.TrimSpace(p.URL) == "" {
			return nil, fmt.Errorf("a manual proxy setting without a proxy URL: %w", ErrProxyURL)
		}
		u, err := parseProxy(p.URL)
		if err != nil {
			return nil, err
		}
		ps.all = u
	case ProxySystem:
		if !envNamesProxy(getenv) {
			return systemProxies(noList)
		}
		fallthrough
	case ProxyEnvironment:
		for _, scheme := range []string{"http", "https", "ftp"} {
			name, v := env(getenv, scheme+"_proxy", scheme != "http")
			if v == "" {
				continue
			}
			u, err := parseProxy(v)
			if err != nil {
				return nil, fmt.Errorf("environment variable %s: %w", name, err)
			}
			ps.byScheme[scheme] = u
		}
		if name, v := env(getenv, "all_proxy", true); v != "" {
			u, err := parseProxy(v)
			if err != nil {
				return nil, fmt.Errorf("environment variable %s: %w", name, err)
			}
			ps.all = u
		}
		if noList == "" {
			_, noList = env(getenv, "no_proxy", true)
		}
	default:
		return nil, fmt.Errorf("proxy mode %d: %w", int(p.Mode), ErrProxyURL)
	}
	ps.direct = parseNoProxy(noList)
	return ps, nil
}

// env reads a variable in lower case and then, when upper is set, in
// upper case. An empty value counts as unset, as in curl.
func env(getenv func(string) string, lower string, upper bool) (string, string) {
	if v := strings.TrimSpace(getenv(lower)); v != "" {
		return lower, v
	}
	if upper {
		name := strings.ToUpper(lower)
		if v := strings.TrimSpace(getenv(name)); v != "" {
			return name, v
		}
	}
	return "", ""
}

// forScheme returns the proxy for traffic of scheme ("http", "https",
// "ftp", or "" for anything else, such as BitTorrent peers) to host, or
// nil to go direct. Loopback is proxied like any host unless no_proxy
// names it: unlike Go's default, a proxy set on purpose is used.
func (ps *proxies) forScheme(scheme, host string) *url.URL {
	if ps == nil || ps.direct.matches(host) {
		return nil
	}
	if u := ps.byScheme[strings.ToLower(scheme)]; u != nil {
		return u
	}
	return ps.all
}

// noProxy is a parsed no_proxy list.
type noProxy struct {
	all bool
	// simple: host names without a dot go direct (Windows' <local>,
	// macOS's ExcludeSimpleHostnames).
	simple   bool
	names    []string // lower case, without leading or trailing dots
	prefixes []netip.Prefix
}

func parseNoProxy(list string) noProxy {
	var n noProxy
	fields := strings.FieldsFunc(list, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' })
	for _, f := range fields {
		if f == "*" {
			if len(fields) == 1 {
				n.all = true
			}
			continue
		}
		f = strings.TrimSuffix(strings.TrimPrefix(f, "["), "]")
		if p, err := netip.ParsePrefix(f); err == nil {
			n.prefixes = append(n.prefixes, p.Masked())
			continue
		}
		if a, err := netip.ParseAddr(strings.TrimSuffix(strings.TrimPrefix(f, "["), "]")); err == nil {
			n.prefixes = append(n.prefixes, netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()))
			continue
		}
		f = strings.ToLower(strings.Trim(f, "."))
		if f != "" {
			n.names = append(n.names, f)
		}
	}
	return n
}

// matches reports whether host (a name or an IP address, without port or
// brackets) is to be reached directly.
func (n noProxy) matches(host string) bool {
	if n.all {
		return true
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if a, err := netip.ParseAddr(host); err == nil {
		a = a.Unmap()
		for _, p := range n.prefixes {
			if p.Contains(a) {
				return true
			}
		}
		return false
	}
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	if n.simple && !strings.Contains(host, ".") {
		return true
	}
	for _, name := range n.names {
		if host == name || strings.HasSuffix(host, "."+name) {
			return true
		}
	}
	return false
}
