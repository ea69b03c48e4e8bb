// Package netconf is how Braid reaches servers: through which proxy (as
// curl chooses it), with which login (from the link, from options, from
// .netrc; HTTP Basic and Digest), with which cookies (a Netscape
// cookies.txt) and headers. It knows nothing of files or mirrors: the
// transports and the BitTorrent client ask it for connections and HTTP
// clients.
//
// Two parts, two lifetimes:
//
//   - A Network is the process's way out (the proxy setting): one per
//     process, shared by every job, built with NewNetwork. Its HTTPClient
//     keeps the kept-alive connections that every download shares.
//   - A Session is one job's manners (logins, cookies, headers), built by
//     Settings.Open; Session.Client wraps a Network's client for the job.
//
// Nothing in this package writes a password, a cookie or a header's value
// into an error, a log or a String.
package netconf

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Network routes connections: directly or through the proxy the setting
// chooses for each scheme and host. It is safe for concurrent use.
type Network struct {
	setting atomic.Pointer[Proxy]   // as last set (SetProxy)
	ps      atomic.Pointer[proxies] // its routes
	direct  DialFunc
	tls     *tls.Config // for https servers and proxies; nil: the system's
	auth    *authenticator

	mu     sync.Mutex
	routes map[string]*http.Transport // by proxy URL; "" is direct
	client *http.Client
}

// NewNetwork makes a Network of a proxy setting. In ProxyEnvironment mode
// the environment is read now, once. A proxy URL Braid cannot use fails
// with an error that wraps ErrProxyURL and never holds its password.
func NewNetwork(p Proxy) (*Network, error) {
	ps, err := loadProxies(p)
	if err != nil {
		return nil, err
	}
	n := &Network{direct: p.DirectDial, tls: p.TLSClientConfig, routes: map[string]*http.Transport{}}
	n.setting.Store(&p)
	n.ps.Store(ps)
	if n.direct == nil {
		n.direct = defaultDirect()
	}
	n.auth = newAuthenticator()
	return n, nil
}

var (
	defaultOnce sync.Once
	defaultNet  *Network
)

// Default is the Network of the system's setting (ProxySystem: the
// environment, else on Windows and macOS the system's proxies), made once
// per process: what a transport uses when it is given none. When the
// setting names a proxy Braid cannot use, Default connects directly.
func Default() *Network {
	defaultOnce.Do(func() {
		var err error
		defaultNet, err = NewNetwork(Proxy{Mode: ProxySystem})
		if err != nil {
			defaultNet, _ = NewNetwork(Proxy{Mode: ProxyNone})
		}
	})
	return defaultNet
}

// String describes the setting without credentials.
func (n *Network) String() string { return n.setting.Load().String() }

// GoString is String, so that %#v shows no password either.
func (n *Network) GoString() string { return "netconf.Network{" + n.String() + "}" }

// ProxyFor is the proxy that traffic of scheme ("http", "https", "ftp", or
// "" for anything else, such as BitTorrent peers) to host takes, or nil
// for a direct connection. The URL holds the proxy's credentials: never
// show it (Redacted does that).
func (n *Network) ProxyFor(scheme, host string) *url.URL {
	return n.ps.Load().forScheme(scheme, host)
}

// Redacted is a URL as it may be shown: without its password.
func Redacted(u *url.URL) string {
	if u == nil {
		return "direct"
	}
	return redactProxy(u.String())
}

// Dialer returns the Dialer for traffic of scheme to host: every
// connection it opens, whatever address it is given, takes the route
// chosen for host. FTP uses it for its control and data connections;
// the BitTorrent client may use Dialer("", host) for peers.
func (n *Network) Dialer(scheme, host string) Dialer {
	if u := n.ProxyFor(scheme, host); u != nil {
		return newProxyDialer(u, n.direct, n.tls)
	}
	return directDialer{n.direct}
}

// DialContext connects to addr as traffic of no scheme of its own, such
// as BitTorrent peer connections: through all_proxy (or the manual
// proxy) unless no_proxy names the host. With anacrolix/torrent:
// ClientConfig.DialForPeerConns = false, then
// Client.AddDialer(torrent.NetworkDialer{Network: "tcp", Dialer: n}).
// Only TCP can go through a proxy: uTP, DHT and UDP trackers cannot.
func (n *Network) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	if u := n.ProxyFor("", host); u != nil && !strings.HasPrefix(network, "tcp") {
		return nil, fmt.Errorf("%s to %s: only TCP goes through proxy %s", network, addr, Redacted(u))
	}
	return n.Dialer("", host).DialContext(ctx, network, addr)
}

// Proxy is the proxy function of net/http's Transport: the HTTP or SOCKS
// proxy for req, or nil. The BitTorrent client's HTTP trackers take it
// (anacrolix's ClientConfig.HTTPProxy). net/http resolves names at a
// socks5:// proxy too, as socks5h:// does; HTTPClient does not.
func (n *Network) Proxy(req *http.Request) (*url.URL, error) {
	return n.ProxyFor(req.URL.Scheme, req.URL.Hostname()), nil
}

// HTTPClient is the Network's client: proxies as set, logins answered
// (see WithLogins), no overall timeout (a download may take hours),
// bounded connection and header waits, connections kept alive and shared
// by every caller.
func (n *Network) HTTPClient() *http.Client {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.client == nil {
		n.client = &http.Client{Transport: n.RoundTripper()}
	}
	return n.client
}

// RoundTripper is the transport of HTTPClient: what a BitTorrent client's
// web seeds can use (anacrolix's ClientConfig.WebTransport).
func (n *Network) RoundTripper() http.RoundTripper {
	return &loginTransport{next: routeTransport{n}, auth: n.auth}
}

// routeTransport sends each request over the http.Transport of its route.
type routeTransport struct{ n *Network }

func (r routeTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	return r.n.transport(r.n.ProxyFor(req.URL.Scheme, req.URL.Hostname())).RoundTrip(req)
}

// CloseIdleConnections closes the idle connections of every route.
func (r routeTransport) CloseIdleConnections() {
	r.n.mu.Lock()
	defer r.n.mu.Unlock()
	for _, t := range r.n.routes {
		t.CloseIdleConnections()
	}
}

// transport returns the http.Transport for the route through proxy (nil:
// direct), made on first use. An HTTP(S) proxy is net/http's own; a SOCKS
// proxy is a dialer, so socks5:// resolves names here and socks5h:// at
// the proxy.
func (n *Network) transport(proxy *url.URL) *http.Transport {
	key := ""
	if proxy != nil {
		key = proxy.String()
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if t := n.routes[key]; t != nil {
		return t
	}
	t := &http.Transport{
		DialContext:           n.direct,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          256,
		MaxIdleConnsPerHost:   16,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   15 * time.Second,
		ResponseHeaderTimeout: 60 * time.Second,
		ExpectContinueTimeout: time.Second,
	}
	if c := n.tls; c != nil {
		t.TLSClientConfig = c.Clone()
	}
	switch {
	case proxy == nil:
	case strings.HasPrefix(proxy.Scheme, "socks5"):
		d := newProxyDialer(proxy, n.direct, n.tls)
		t.DialContext = d.DialContext
	default:
		p := *proxy
		t.Proxy = func(*http.Request) (*url.URL, error) { return &p, nil }
		t.OnProxyConnectResponse = func(_ context.Context, _ *url.URL, _ *http.Request, resp *http.Response) error {
			if resp.StatusCode == http.StatusProxyAuthRequired {
				return fmt.Errorf("proxy %s: CONNECT: %s: %w", Redacted(&p), resp.Status, ErrProxyLogin)
			}
			return nil
		}
	}
	n.routes[key] = t
	return t
}
