package netconf

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	xproxy "golang.org/x/net/proxy"
)

// DialFunc opens a connection, as net.Dialer.DialContext does.
type DialFunc func(ctx context.Context, network, addr string) (net.Conn, error)

// Dialer opens connections to one server the way a Network routes it:
// directly or through its proxy. FTP's control and data connections to
// one server use one Dialer, so both take the same way.
type Dialer interface {
	DialContext(ctx context.Context, network, addr string) (net.Conn, error)
}

// ErrProxyLogin is wrapped by the error of a connection the proxy refused
// because it asks for a login, or did not accept the one in its URL.
var ErrProxyLogin = errors.New("the proxy asks for a login or refused it")

// dialTimeout bounds a connection's opening, proxy handshakes included.
const dialTimeout = 30 * time.Second

func defaultDirect() DialFunc {
	d := &net.Dialer{Timeout: dialTimeout, KeepAlive: 30 * time.Second}
	return d.DialContext
}

// directDialer dials without a proxy.
type directDialer struct{ dial DialFunc }

func (d directDialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	return d.dial(ctx, network, addr)
}

// Dial is DialContext without a context, for golang.org/x/net/proxy.
func (d directDialer) Dial(network, addr string) (net.Conn, error) {
	return d.dial(context.Background(), network, addr)
}

// newProxyDialer returns a Dialer through proxy u: SOCKS5 through
// golang.org/x/net/proxy, http:// and https:// by CONNECT.
func newProxyDialer(u *url.URL, direct DialFunc, tlsConf *tls.Config) Dialer {
	switch u.Scheme {
	case "socks5", "socks5h":
		var auth *xproxy.Auth
		if u.User != nil {
			pass, _ := u.User.Password()
			auth = &xproxy.Auth{User: u.User.Username(), Password: pass}
		}
		// x/net/proxy's SOCKS5 sends the name to the proxy: socks5h. For
		// socks5 the name is resolved here first, as curl does.
		d, _ := xproxy.SOCKS5("tcp", u.Host, auth, directDialer{direct}) // never fails
		return &socksDialer{d: d.(xproxy.ContextDialer), proxy: u, localDNS: u.Scheme == "socks5"}
	default:
		return &connectDialer{proxy: u, direct: direct, tls: tlsConf}
	}
}

// socksDialer connects through a SOCKS5 proxy.
type socksDialer struct {
	d        xproxy.ContextDialer
	proxy    *url.URL
	localDNS bool
}

func (s *socksDialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	ctx, cancel := context.WithTimeout(ctx, dialTimeout)
	defer cancel()
	targets := []string{addr}
	if s.localDNS {
		host, port, err := net.SplitHostPort(addr)
		if err != nil {
			return nil, err
		}
		if net.ParseIP(host) == nil {
			ips, err := net.DefaultResolver.LookupIPAddr(ctx, host)
			if err != nil {
				return nil, err
			}
			if len(ips) == 0 {
				return nil, &net.DNSError{Err: "no address", Name: host, IsNotFound: true}
			}
			// Each address in turn, as a direct dial tries them.
			targets = targets[:0]
			for _, ip := range ips {
				targets = append(targets, net.JoinHostPort(ip.IP.String(), port))
			}
		}
	}
	var (
		c   net.Conn
		err error
	)
	for _, target := range targets {
		if c, err = s.d.DialContext(ctx, "tcp", target); err == nil || ctx.Err() != nil {
			break
		}
	}
	if err != nil {
		err = fmt.Errorf("through proxy %s: %w", redactProxy(s.proxy.String()), err)
		if m := err.Error(); strings.Contains(m, "authentication failed") || strings.Contains(m, "no acceptable authentication methods") {
			err = fmt.Errorf("%w: %w", err, ErrProxyLogin)
		}
		return nil, err
	}
	return c, nil
}

// connectDialer opens a tunnel through an HTTP proxy with CONNECT (RFC
// 9110 §9.3.6), over TLS for an https:// proxy.
type connectDialer struct {
	proxy  *url.URL
	direct DialFunc
	tls    *tls.Config // for an https:// proxy; nil: the system's roots
}

func (c *connectDialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	ctx, cancel := context.WithTimeout(ctx, dialTimeout)
	defer cancel()
	shown := redactProxy(c.proxy.String())
	conn, err := c.direct(ctx, "tcp", c.proxy.Host)
	if err != nil {
		return nil, fmt.Errorf("proxy %s: %w", shown, err)
	}
	if c.proxy.Scheme == "https" {
		conf := &tls.Config{}
		if c.tls != nil {
			conf = c.tls.Clone()
		}
		conf.ServerName = c.proxy.Hostname()
		tc := tls.Client(conn, conf)
		if err := tc.HandshakeContext(ctx); err != nil {
			conn.Close()
			return nil, fmt.Errorf("proxy %s: %w", shown, err)
		}
		conn = tc
	}
	// The handshake obeys ctx: a proxy that never answers is cut.
	stop := context.AfterFunc(ctx, func() { _ = conn.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	req := &http.Request{
		Method: http.MethodConnect,
		URL:    &url.URL{Opaque: addr},
		Host:   addr,
		Header: http.Header{},
	}
	if u := c.proxy.User; u != nil {
		pass, _ := u.Password()
		req.Header.Set("Proxy-Authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte(u.Username()+":"+pass)))
	}
	if err := req.Write(conn); err != nil {
		conn.Close()
		return nil, fmt.Errorf("proxy %s: CONNECT %s: %w", shown, addr, ctxOr(ctx, err))
	}
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, req)
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("proxy %s: CONNECT %s: %w", shown, addr, ctxOr(ctx, err))
	}
	resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusProxyAuthRequired:
		conn.Close()
		return nil, fmt.Errorf("proxy %s: CONNECT %s: %s: %w", shown, addr, resp.Status, ErrProxyLogin)
	case resp.StatusCode < 200 || resp.StatusCode > 299:
		conn.Close()
		return nil, fmt.Errorf("proxy %s: CONNECT %s: %s", shown, addr, resp.Status)
	}
	if !stop() {
		conn.Close()
		return nil, fmt.Errorf("proxy %s: CONNECT %s: %w", shown, addr, ctx.Err())
	}
	if br.Buffered() > 0 {
		// The server spoke first (an FTP greeting) and the proxy sent it
		// with its answer: those bytes are the tunnel's.
		return &bufferedConn{Conn: conn, r: br}, nil
	}
	return conn, nil
}

func ctxOr(ctx context.Context, err error) error {
	if cerr := ctx.Err(); cerr != nil {
		return cerr
	}
	return err
}

// bufferedConn is a connection whose first bytes were read ahead.
type bufferedConn struct {
	net.Conn
	r *bufio.Reader
}

func (b *bufferedConn) Read(p []byte) (int, error) { return b.r.Read(p) }
