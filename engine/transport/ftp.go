package transport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/textproto"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/jlaffaye/ftp"

	"braid/engine/netconf"
	redactpkg "braid/engine/redact"
)

var (
	_ Stater    = (*FTPSource)(nil)
	_ io.Closer = (*FTPSource)(nil)
)

const (
	// ftpCmdTimeout bounds every wait for a control-connection reply, so a
	// server that stops answering cannot hang a worker.
	ftpCmdTimeout = 30 * time.Second
	// ftpShutTimeout bounds the wait for the reply that ends a transfer.
	ftpShutTimeout = 5 * time.Second
	// DefaultFTPIdle is how many idle logins an FTPPool keeps per server
	// and user when made with a non-positive bound.
	DefaultFTPIdle = 4
	// anonymousPass is the customary anonymous FTP password.
	anonymousPass = "braid@"
)

// FTPSource reads one file from one FTP mirror: passive mode (EPSV, then
// PASV), REST for ranges, logged-in control connections reused through an
// FTPPool. It is safe for concurrent use: each ReadRange holds its own
// control connection. Close it when done.
type FTPSource struct {
	mirror     string // URL without credentials
	addr       string // host:port
	path       string // path as sent to the server
	user, pass string
	key        string // pool key: server, user and route
	dialer     netconf.Dialer
	proxied    bool // the dialer goes through a proxy
	size       int64
	pool       *FTPPool
	ownPool    bool

	sizeMu     sync.Mutex
	remoteSize int64 // -1 until known or when SIZE is unsupported
	sizeKnown  bool  // SIZE was asked

	parking parking // transfers kept running between ranges (see park.go)
}

// NewFTP returns a Source for an ftp URL. The URL's user information is
// the login; without it, Options.Session's (FTP user fields, .netrc), and
// without those, anonymous. The path is taken relative to the login
// directory, as RFC 1738 and curl do. Control and data connections go the
// way Options.Network routes ftp traffic to the host.
func NewFTP(rawURL string, opts Options) (*FTPSource, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("mirror URL %q: %w", redact(rawURL), err)
	}
	if !strings.EqualFold(u.Scheme, "ftp") {
		return nil, fmt.Errorf("mirror %s: %q: %w", redact(rawURL), u.Scheme, ErrUnsupportedScheme)
	}
	if u.Hostname() == "" {
		return nil, fmt.Errorf("mirror URL %q has no host", redact(rawURL))
	}
	p := strings.TrimPrefix(u.Path, "/")
	if p == "" || strings.HasSuffix(p, "/") {
		return nil, fmt.Errorf("mirror URL %q names no file", redact(rawURL))
	}
	s := &FTPSource{
		addr:       u.Host,
		path:       p,
		user:       "anonymous",
		pass:       anonymousPass,
		size:       opts.Size,
		pool:       opts.FTPPool,
		remoteSize: -1,
	}
	if u.Port() == "" {
		s.addr = net.JoinHostPort(u.Hostname(), "21")
	}
	if u.User != nil {
		s.user = u.User.Username()
		if pw, ok := u.User.Password(); ok {
			s.pass = pw
		}
	} else if l, ok := opts.Session.FTPLogin(u); ok {
		s.user, s.pass = l.User, l.Password
	}
	network := opts.network()
	s.dialer = network.Dialer("ftp", u.Hostname())
	route := ""
	if p := network.ProxyFor("ftp", u.Hostname()); p != nil {
		route = p.String() // a map key, never shown
		s.proxied = true
	}
	s.key = s.addr + "\x00" + s.user + "\x00" + route
	if s.pool == nil {
		s.pool, s.ownPool = NewFTPPool(0), true
	}
	s.mirror = redactpkg.Parsed(u)
	return s, nil
}

// Mirror is the URL without credentials.
func (s *FTPSource) Mirror() string { return s.mirror }

// Close closes the source's own connection pool. A shared pool stays open
// for its owner to close.
func (s *FTPSource) Close() error {
	s.parking.close()
	if s.ownPool {
		return s.pool.Close()
	}
	return nil
}

// Stat asks the server for the file's size (SIZE). A size other than the
// expected one fails with ErrMismatch, returned with the Info.
func (s *FTPSource) Stat(ctx context.Context) (Info, error) {
	s.parking.abortOne()
	c, err := s.conn(ctx)
	if err != nil {
		return Info{Size: -1}, err
	}
	size, err := s.checkSize(c)
	c.end()
	s.pool.release(c, connBroken(err))
	return Info{Size: size, Ranges: true}, err
}

// ReadRange RETRs the file from off (REST) and yields n bytes; closing the
// reader ends the transfer.
func (s *FTPSource) ReadRange(ctx context.Context, off, n int64) (io.ReadCloser, error) {
	if err := checkRange(s.mirror, off, n, s.size); err != nil {
		return nil, err
	}
	if n == 0 {
		return io.NopCloser(strings.NewReader("")), nil
	}
	if e := s.parking.take(off); e != nil {
		b := e.b
		// The transfer of the last range goes on where it is: no abort,
		// no new RETR, nothing sent twice.
		b.c.begin(ctx)
		return &ftpBody{s: s, c: b.c, resp: b.resp, ctx: ctx, left: n, n: n, off: off}, nil
	}
	// A parked transfer elsewhere in the file gives its login up, rather
	// than hold it while this range logs in anew (servers count logins).
	s.parking.abortOne()
	c, err := s.conn(ctx)
	if err != nil {
		return nil, err
	}
	size, err := s.checkSize(c)
	if err == nil {
		err = checkRange(s.mirror, off, n, size)
	}
	if err != nil {
		c.end()
		s.pool.release(c, connBroken(err))
		return nil, err
	}
	resp, err := c.sc.RetrFrom(s.path, uint64(off))
	if err != nil {
		c.end()
		s.pool.release(c, connBroken(err))
		return nil, c.ctxErr(s.ftpError(fmt.Sprintf("bytes %d-%d: RETR", off, off+n-1), err))
	}
	return &ftpBody{s: s, c: c, resp: resp, ctx: ctx, left: n, n: n, off: off}, nil
}

// conn takes a logged-in connection for ctx: an idle one from the pool if
// it still answers, otherwise a new one.
func (s *FTPSource) conn(ctx context.Context) (*ftpConn, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for {
		c := s.pool.take(s.key)
		if c == nil {
			break
		}
		c.begin(ctx)
		// The server may have dropped an idle login (421 timeout); ask.
		if err := c.sc.NoOp(); err == nil {
			return c, nil
		}
		c.end()
		s.pool.release(c, true)
	}
	server := ""
	if s.proxied {
		server = s.addr
	}
	c, err := dialFTP(ctx, s.dialer, s.addr, server, s.user, s.pass)
	if err != nil {
		return nil, s.ftpError("login", err)
	}
	c.key = s.key
	return c, nil // its operation under ctx is begun
}

// checkSize asks SIZE once per source and compares it with the expected
// size. A server without SIZE leaves the size unknown.
func (s *FTPSource) checkSize(c *ftpConn) (int64, error) {
	s.sizeMu.Lock()
	defer s.sizeMu.Unlock()
	if !s.sizeKnown {
		size, err := c.sc.FileSize(s.path)
		var te *textproto.Error
		switch {
		case err == nil:
			s.remoteSize = size
		case errors.As(err, &te) && (te.Code == ftp.StatusFileUnavailable || te.Code == ftp.StatusFileActionIgnored):
			return -1, s.ftpError("SIZE", err)
		case errors.As(err, &te):
			// SIZE not implemented (500, 502, 504): learn the size from
			// the transfer instead.
		default:
			return -1, s.ftpError("SIZE", err)
		}
		s.sizeKnown = true
	}
	if s.size >= 0 && s.remoteSize >= 0 && s.remoteSize != s.size {
		return s.remoteSize, fmt.Errorf("%s: mirror's file is %d bytes, want %d: %w", s.mirror, s.remoteSize, s.size, ErrMismatch)
	}
	return s.remoteSize, nil
}

// ftpError maps an FTP failure to the package's errors.
func (s *FTPSource) ftpError(what string, err error) error {
	if errors.Is(err, netconf.ErrProxyLogin) {
		return fmt.Errorf("%s: %s: %w", s.mirror, what, proxyLogin(s.mirror, err))
	}
	var te *textproto.Error
	if errors.As(err, &te) {
		switch te.Code {
		case ftp.StatusNotAvailable:
			return &RetryError{After: DefaultRetryAfter, Err: fmt.Errorf("%s: %s: %w", s.mirror, what, err)}
		case ftp.StatusFileUnavailable, ftp.StatusFileActionIgnored, ftp.StatusBadFileName:
			return fmt.Errorf("%s: %s: %w: %w", s.mirror, what, err, ErrNotFound)
		case ftp.StatusNotLoggedIn:
			return fmt.Errorf("%s: %s: %w", s.mirror, what, &LoginError{
				Mirror:  s.mirror,
				Refused: s.user != "anonymous" && s.user != "ftp",
				Detail:  te.Error(),
			})
		}
	}
	return fmt.Errorf("%s: %s: %w", s.mirror, what, err)
}

// connBroken reports whether the control connection may be out of step
// after err: anything but a plain reply or a refusal of ours.
func connBroken(err error) bool {
	return err != nil && !isProtocolError(err) && !errors.Is(err, ErrMismatch)
}

// isProtocolError reports whether err is a reply from the server, after
// which the control connection is still in step.
func isProtocolError(err error) bool {
	var te *textproto.Error
	return errors.As(err, &te) && te.Code != ftp.StatusNotAvailable
}

// ftpBody yields n bytes of a RETR. Closing it before the server's end of
// file cuts the data connection; the server then answers 426 (or 451, or
// 226 if it had already sent everything), and perhaps a second reply, so
// the control connection is proved in step with a NOOP before it is
// pooled again, and discarded if anything is off.
type ftpBody struct {
	s      *FTPSource
	c      *ftpConn
	resp   *ftp.Response
	ctx    context.Context
	left   int64
	n, off int64
	done   bool
}

func (b *ftpBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		return 0, io.EOF
	}
	if b.done {
		return 0, fmt.Errorf("%s: read after Close", b.s.mirror)
	}
	if err := b.ctx.Err(); err != nil {
		return 0, err
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	k, err := b.resp.Read(p)
	b.left -= int64(k)
	switch {
	case b.left == 0:
		return k, nil
	case err == io.EOF:
		return k, fmt.Errorf("%s: bytes %d-%d: transfer ended after %d of %d bytes: %w",
			b.s.mirror, b.off, b.off+b.n-1, b.n-b.left, b.n, io.ErrUnexpectedEOF)
	case err != nil:
		if cerr := b.ctx.Err(); cerr != nil {
			return k, cerr
		}
		return k, fmt.Errorf("%s: bytes %d-%d: %w", b.s.mirror, b.off, b.off+b.n-1, err)
	}
	return k, nil
}

// Close ends the transfer and returns the control connection to the pool
// when it is known to be healthy.
func (b *ftpBody) Close() error {
	if b.done {
		return nil
	}
	b.done = true
	// A transfer its context ended leaves the connection in an unknown
	// state (the cancel hook may be cutting it right now): discard it.
	healthy := !b.c.aborted() && b.ctx.Err() == nil
	if healthy && b.left == 0 && b.n > 0 && b.s.parking.park(b) {
		return nil
	}
	b.endTransfer(healthy)
	return nil
}

// endTransfer ends the transfer, cutting it if the server is still
// sending, and returns the control connection to the pool when it is
// known to be healthy.
func (b *ftpBody) endTransfer(healthy bool) {
	c := b.c
	if healthy {
		c.deadline(ftpShutTimeout)
		err := b.resp.Close() // closes the data connection, reads the final reply
		switch {
		case err == nil:
		case isProtocolError(err):
			// A cut transfer's 426/451: check no further reply is pending.
			c.deadline(ftpShutTimeout)
			healthy = c.sc.NoOp() == nil
		default:
			healthy = false
		}
	} else {
		c.closeData()
	}
	c.end()
	b.s.pool.release(c, !healthy || c.aborted())
}

// ftpConn is one logged-in control connection and the data connection of
// its current transfer. It is used by one goroutine at a time.
type ftpConn struct {
	key    string
	sc     *ftp.ServerConn
	dialer netconf.Dialer
	// server is the host:port the control connection was dialed to
	// through a proxy ("" without one), for the data connections.
	server string

	mu     sync.Mutex
	ctx    context.Context // of the current operation, for data dials
	ctrl   net.Conn
	data   net.Conn
	stop   func() bool // stops the current operation's cancel hook
	op     int         // counts operations, so a late hook cannot cut a later one
	killed bool        // ctx ended mid-operation: deadlines are in the past
	why    error       // the context's error when killed
}

// dialFTP connects and logs in; the dial, the greeting and the login obey
// ctx. The connection is returned with an operation under ctx begun.
// server is addr when d goes through a proxy, else "".
func dialFTP(ctx context.Context, d netconf.Dialer, addr, server, user, pass string) (*ftpConn, error) {
	c := &ftpConn{dialer: d, server: server}
	c.begin(ctx)
	sc, err := ftp.Dial(addr, ftp.DialWithDialFunc(c.dial))
	if err != nil {
		c.end()
		c.closeAll()
		return nil, c.ctxErr(err)
	}
	c.sc = sc
	if err := sc.Login(user, pass); err != nil {
		c.end()
		_ = sc.Quit()
		return nil, c.ctxErr(err)
	}
	return c, nil
}

// dial opens the control connection first, then each data connection, in
// the current operation's context, and remembers them so that a cancelled
// context can cut them.
func (c *ftpConn) dial(network, addr string) (net.Conn, error) {
	c.mu.Lock()
	ctx, data := c.ctx, c.ctrl != nil
	c.mu.Unlock()
	if data && c.server != "" {
		// jlaffaye/ftp sends a data connection to the control
		// connection's remote address with the port passive mode gave.
		// Through a proxy that address is the proxy's: the data
		// connection goes to the server's, through the proxy as well.
		if host, _, err := net.SplitHostPort(c.server); err == nil {
			if _, port, err := net.SplitHostPort(addr); err == nil {
				addr = net.JoinHostPort(host, port)
			}
		}
	}
	ctx, cancel := context.WithTimeout(ctx, ftpCmdTimeout)
	defer cancel()
	conn, err := c.dialer.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case c.killed:
		_ = conn.SetDeadline(time.Unix(1, 0))
	case c.ctrl == nil:
		_ = conn.SetDeadline(time.Now().Add(ftpCmdTimeout))
	}
	// A data connection gets no deadline: a transfer may take hours, and
	// cutting a stalled one is the scheduler's call, made through ctx.
	if c.ctrl == nil {
		c.ctrl = conn
	} else {
		c.data = conn
	}
	return conn, nil
}

// begin starts an operation under ctx: replies are awaited at most
// ftpCmdTimeout, and ctx ending cuts both connections at once.
func (c *ftpConn) begin(ctx context.Context) {
	c.mu.Lock()
	c.ctx = ctx
	if c.ctrl != nil && !c.killed {
		_ = c.ctrl.SetDeadline(time.Now().Add(ftpCmdTimeout))
	}
	op := c.op
	c.mu.Unlock()
	c.stop = context.AfterFunc(ctx, func() { c.kill(op) })
}

// end finishes an operation: the cancel hook is removed and, unless it
// fired, the control connection waits without a deadline while pooled.
func (c *ftpConn) end() {
	if c.stop != nil {
		c.stop()
		c.stop = nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.op++
	c.ctx = context.Background()
	if !c.killed && c.ctrl != nil {
		_ = c.ctrl.SetDeadline(time.Time{})
	}
	if c.data != nil {
		_ = c.data.SetDeadline(time.Time{})
	}
}

// deadline gives the control connection d to answer.
func (c *ftpConn) deadline(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.killed && c.ctrl != nil {
		_ = c.ctrl.SetDeadline(time.Now().Add(d))
	}
}

// kill makes every blocked read and write on both connections fail now,
// if operation op is still the current one.
func (c *ftpConn) kill(op int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if op != c.op {
		return
	}
	c.killed = true
	c.why = c.ctx.Err()
	past := time.Unix(1, 0)
	if c.ctrl != nil {
		_ = c.ctrl.SetDeadline(past)
	}
	if c.data != nil {
		_ = c.data.SetDeadline(past)
	}
}

func (c *ftpConn) aborted() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.killed
}

func (c *ftpConn) closeData() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.data != nil {
		_ = c.data.Close()
	}
}

func (c *ftpConn) closeAll() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.data != nil {
		_ = c.data.Close()
	}
	if c.ctrl != nil {
		_ = c.ctrl.Close()
	}
}

// ctxErr prefers the context's error when it ended the operation.
func (c *ftpConn) ctxErr(err error) error {
	c.mu.Lock()
	why := c.why
	c.mu.Unlock()
	if why != nil {
		return fmt.Errorf("%w (%v)", why, err)
	}
	return err
}

// quit says goodbye briefly and closes both connections.
func (c *ftpConn) quit() {
	if c.sc != nil && !c.aborted() {
		c.deadline(time.Second)
		_ = c.sc.Quit()
	}
	c.closeAll()
}

// FTPPool keeps idle logged-in FTP control connections for reuse, keyed by
// server and user, at most a few per key. It is safe for concurrent use.
type FTPPool struct {
	mu      sync.Mutex
	idle    map[string][]*ftpConn
	maxIdle int
	closed  bool
}

// NewFTPPool returns a pool keeping at most maxIdle idle connections per
// server and user (DefaultFTPIdle when maxIdle <= 0).
func NewFTPPool(maxIdle int) *FTPPool {
	if maxIdle <= 0 {
		maxIdle = DefaultFTPIdle
	}
	return &FTPPool{idle: map[string][]*ftpConn{}, maxIdle: maxIdle}
}

// take pops an idle connection for key, or returns nil.
func (p *FTPPool) take(key string) *ftpConn {
	p.mu.Lock()
	defer p.mu.Unlock()
	list := p.idle[key]
	if len(list) == 0 {
		return nil
	}
	c := list[len(list)-1]
	p.idle[key] = list[:len(list)-1]
	return c
}

// release returns c to the pool, or closes it when broken. Past the bound,
// or after Close, a healthy connection is logged out instead.
func (p *FTPPool) release(c *ftpConn, broken bool) {
	if !broken && !c.aborted() {
		p.mu.Lock()
		if !p.closed && len(p.idle[c.key]) < p.maxIdle {
			p.idle[c.key] = append(p.idle[c.key], c)
			p.mu.Unlock()
			return
		}
		p.mu.Unlock()
		c.quit()
		return
	}
	c.closeAll()
}

// Close logs out every idle connection; connections in use are closed when
// their transfers end.
func (p *FTPPool) Close() error {
	p.mu.Lock()
	p.closed = true
	var all []*ftpConn
	for _, list := range p.idle {
		all = append(all, list...)
	}
	p.idle = map[string][]*ftpConn{}
	p.mu.Unlock()
	for _, c := range all {
		c.quit()
	}
	return nil
}
