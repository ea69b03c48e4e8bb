// Package ftptest runs a real FTP server (goftp.io/server/v2) in-process on
// 127.0.0.1 for tests: it serves given files from a temporary directory to
// anonymous users and/or one user with a password, in passive mode (EPSV
// and PASV), and counts what it served.
package ftptest

import (
	"errors"
	"io"
	"net"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"goftp.io/server/v2"
	"goftp.io/server/v2/driver/file"
)

// Server is a running FTP server. Its methods are safe for concurrent use.
// It is closed by t.Cleanup; Close takes it down earlier.
type Server struct {
	cfg  config
	ln   net.Listener
	done chan struct{} // closed when Serve returns

	served atomic.Int64
	conns  atomic.Int64
	active atomic.Int64

	paceMu sync.Mutex
	next   time.Time // end of the last reserved send slot (Rate)

	mu     sync.Mutex
	open   map[net.Conn]struct{}
	retrs  []Retr
	closed bool
}

// Retr is one RETR the server answered.
type Retr struct {
	Path   string // as the server resolved it, slash-separated
	Offset int64  // the REST offset
}

type config struct {
	files      map[string][]byte
	anonymous  bool
	user, pass string
	cutAfter   int64 // -1: off
	maxConns   int
	rate       int64 // bytes per second for the whole server; 0: unlimited
}

// Option shapes a Server.
type Option func(*config)

// File adds a file at a slash-separated path such as "pub/a.iso". Parent
// directories are created.
func File(name string, data []byte) Option {
	return func(c *config) { c.files[name] = data }
}

// User allows logging in as user with pass. Without User the server allows
// only anonymous logins; with it, anonymous logins are refused unless
// Anonymous is given too.
func User(user, pass string) Option {
	return func(c *config) { c.user, c.pass = user, pass }
}

// Anonymous allows anonymous logins ("anonymous" or "ftp", any password)
// alongside a User.
func Anonymous() Option { return func(c *config) { c.anonymous = true } }

// CutAfter makes every RETR send at most n bytes and then end the transfer
// as if the file ended there: a server whose copy is truncated.
func CutAfter(n int64) Option { return func(c *config) { c.cutAfter = n } }

// Rate limits the server to bytesPerSec for all its transfers together,
// as a mirror whose uplink is the bottleneck is.
func Rate(bytesPerSec int64) Option { return func(c *config) { c.rate = bytesPerSec } }

// MaxConns makes the server greet a control connection beyond n open ones
// with "421 Too many connections" and hang up, as busy FTP mirrors do.
func MaxConns(n int) Option { return func(c *config) { c.maxConns = n } }

// New starts a server on 127.0.0.1 and registers its Close with t.Cleanup.
func New(t testing.TB, opts ...Option) *Server {
	t.Helper()
	cfg := config{files: map[string][]byte{}, cutAfter: -1}
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.user == "" {
		cfg.anonymous = true
	}
	root := t.TempDir()
	for name, data := range cfg.files {
		p := filepath.Join(root, filepath.FromSlash(path.Clean("/"+name)))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatalf("ftptest: %v", err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatalf("ftptest: %v", err)
		}
	}
	drv, err := file.NewDriver(root)
	if err != nil {
		t.Fatalf("ftptest: %v", err)
	}
	s := &Server{cfg: cfg, done: make(chan struct{}), open: map[net.Conn]struct{}{}}
	fs, err := server.NewServer(&server.Options{
		Driver:   &driver{Driver: drv, s: s},
		Auth:     auth{&cfg},
		Perm:     server.NewSimplePerm("ftp", "ftp"),
		Hostname: "127.0.0.1",
		Port:     1, // unused: we Serve our own listener
		Logger:   quiet{},
		Name:     "ftptest",
	})
	if err != nil {
		t.Fatalf("ftptest: %v", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("ftptest: listen: %v", err)
	}
	s.ln = &listener{Listener: ln, s: s}
	go func() {
		defer close(s.done)
		_ = fs.Serve(s.ln) // returns when the listener closes
	}()
	t.Cleanup(s.Close)
	return s
}

// Addr is the server's host:port.
func (s *Server) Addr() string { return s.ln.Addr().String() }

// URL is the ftp:// URL of a file, without credentials.
func (s *Server) URL(name string) string {
	u := url.URL{Scheme: "ftp", Host: s.Addr(), Path: path.Clean("/" + name)}
	return u.String()
}

// UserURL is the ftp:// URL of a file with user:pass in it.
func (s *Server) UserURL(name, user, pass string) string {
	u := url.URL{Scheme: "ftp", User: url.UserPassword(user, pass), Host: s.Addr(), Path: path.Clean("/" + name)}
	return u.String()
}

// BytesServed is the number of file bytes the server read for sending.
// When a client cuts a transfer it may exceed what reached the client by
// up to one copy buffer.
func (s *Server) BytesServed() int64 { return s.served.Load() }

// Conns is the number of control connections accepted so far (including
// ones refused by MaxConns); with connection reuse it stays below the
// number of transfers.
func (s *Server) Conns() int { return int(s.conns.Load()) }

// Open is the number of control connections open now.
func (s *Server) Open() int { return int(s.active.Load()) }

// Retrs is a copy of the log of RETR commands served, in order.
func (s *Server) Retrs() []Retr {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Retr(nil), s.retrs...)
}

// Close stops the server and cuts every open control connection. It is
// safe to call more than once.
func (s *Server) Close() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	open := make([]net.Conn, 0, len(s.open))
	for c := range s.open {
		open = append(open, c)
	}
	s.mu.Unlock()
	for _, c := range open {
		c.Close() // takes s.mu to untrack itself
	}
	s.ln.Close()
	<-s.done
}

// listener tracks control connections so Close can cut them, and turns
// away those beyond MaxConns.
type listener struct {
	net.Listener
	s *Server
}

func (l *listener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		l.s.conns.Add(1)
		if n := l.s.cfg.maxConns; n > 0 && l.s.active.Load() >= int64(n) {
			_, _ = io.WriteString(c, "421 Too many connections, try again later\r\n")
			c.Close()
			continue
		}
		l.s.active.Add(1)
		tc := &trackedConn{Conn: c, s: l.s}
		l.s.mu.Lock()
		if l.s.closed {
			l.s.mu.Unlock()
			c.Close()
			return nil, net.ErrClosed
		}
		l.s.open[tc] = struct{}{}
		l.s.mu.Unlock()
		return tc, nil
	}
}

type trackedConn struct {
	net.Conn
	s    *Server
	once sync.Once
}

func (c *trackedConn) Close() error {
	c.once.Do(func() {
		c.s.active.Add(-1)
		c.s.mu.Lock()
		delete(c.s.open, c)
		c.s.mu.Unlock()
	})
	return c.Conn.Close()
}

// driver is the file driver with counting, logging and truncation.
type driver struct {
	server.Driver
	s *Server
}

func (d *driver) GetFile(ctx *server.Context, p string, offset int64) (int64, io.ReadCloser, error) {
	size, rc, err := d.Driver.GetFile(ctx, p, offset)
	if err != nil {
		return size, rc, err
	}
	d.s.mu.Lock()
	d.s.retrs = append(d.s.retrs, Retr{Path: p, Offset: offset})
	d.s.mu.Unlock()
	var r io.Reader = rc
	if n := d.s.cfg.cutAfter; n >= 0 {
		r = io.LimitReader(rc, n)
		size = min(size, n)
	}
	return size, &countingReader{r: r, c: rc, served: &d.s.served, s: d.s}, nil
}

// Refuse writes outright: the kit serves files, it does not take them.
func (d *driver) PutFile(*server.Context, string, io.Reader, int64) (int64, error) {
	return 0, errors.New("ftptest: read-only server")
}

func (d *driver) DeleteFile(*server.Context, string) error {
	return errors.New("ftptest: read-only server")
}

type countingReader struct {
	r      io.Reader
	c      io.Closer
	served *atomic.Int64
	s      *Server
}

func (r *countingReader) Read(p []byte) (int, error) {
	if rate := r.s.cfg.rate; rate > 0 {
		// Slots of about 10 ms on one clock shared by all transfers.
		p = p[:min(len(p), int(max(rate/100, 1024)))]
		r.s.paceMu.Lock()
		now := time.Now()
		if r.s.next.Before(now) {
			r.s.next = now
		}
		r.s.next = r.s.next.Add(time.Duration(float64(len(p)) / float64(rate) * float64(time.Second)))
		until := r.s.next
		r.s.paceMu.Unlock()
		time.Sleep(time.Until(until))
	}
	n, err := r.r.Read(p)
	r.served.Add(int64(n))
	return n, err
}

func (r *countingReader) Close() error { return r.c.Close() }

type auth struct{ cfg *config }

func (a auth) CheckPasswd(_ *server.Context, user, pass string) (bool, error) {
	if a.cfg.anonymous && (user == "anonymous" || user == "ftp") {
		return true, nil
	}
	return a.cfg.user != "" && user == a.cfg.user && pass == a.cfg.pass, nil
}

// quiet drops the server's log: tests report through their own failures.
type quiet struct{}

func (quiet) Print(string, any)                   {}
func (quiet) Printf(string, string, ...any)       {}
func (quiet) PrintCommand(string, string, string) {}
func (quiet) PrintResponse(string, int, string)   {}
