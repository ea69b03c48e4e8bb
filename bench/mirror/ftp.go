package mirror

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"sync/atomic"

	"goftp.io/server/v2"
	"goftp.io/server/v2/driver/file"
)

// FTPServer is a bench FTP mirror: anonymous, passive mode, serving
// /file.bin as generated content at the Behaviour's rate (the other fields
// are ignored), counting every byte it sends.
type FTPServer struct {
	c      *Content
	ln     net.Listener
	dir    string
	url    string
	served atomic.Int64
	retrs  atomic.Int64
	quit   chan struct{}
	pace   *pacer
	done   chan struct{}
}

// StartFTP serves c at addr (a loopback address; the port is chosen) as
// /file.bin until Close.
func StartFTP(c *Content, addr string, b Behaviour) (*FTPServer, error) {
	dir, err := os.MkdirTemp("", "benchftp-")
	if err != nil {
		return nil, err
	}
	// A sparse file of the right size answers SIZE and directory listings;
	// its bytes are never read.
	f, err := os.Create(filepath.Join(dir, "file.bin"))
	if err != nil {
		return nil, err
	}
	if err := f.Truncate(c.Size); err != nil {
		f.Close()
		return nil, err
	}
	f.Close()
	drv, err := file.NewDriver(dir)
	if err != nil {
		return nil, err
	}
	s := &FTPServer{c: c, dir: dir, quit: make(chan struct{}), done: make(chan struct{})}
	s.pace = &pacer{rate: b.Rate, quit: s.quit}
	host, _, _ := net.SplitHostPort(net.JoinHostPort(addr, "0"))
	fs, err := server.NewServer(&server.Options{
		Driver:   &ftpDriver{Driver: drv, s: s},
		Auth:     anonymous{},
		Perm:     server.NewSimplePerm("ftp", "ftp"),
		Hostname: host,
		Port:     1, // unused: it serves our listener
		Logger:   silent{},
		Name:     "braidbench",
	})
	if err != nil {
		return nil, err
	}
	if s.ln, err = net.Listen("tcp", net.JoinHostPort(addr, "0")); err != nil {
		return nil, err
	}
	s.url = "ftp://" + s.ln.Addr().String() + "/file.bin"
	go func() {
		defer close(s.done)
		_ = fs.Serve(s.ln)
	}()
	return s, nil
}

// URL is the file's URL.
func (s *FTPServer) URL() string { return s.url }

// Served is the number of file bytes sent so far.
func (s *FTPServer) Served() int64 { return s.served.Load() }

// Retrs is the number of transfers (RETR) started so far.
func (s *FTPServer) Retrs() int64 { return s.retrs.Load() }

// Close stops the server.
func (s *FTPServer) Close() {
	close(s.quit)
	s.ln.Close()
	<-s.done
	os.RemoveAll(s.dir)
}

type ftpDriver struct {
	server.Driver
	s *FTPServer
}

func (d *ftpDriver) GetFile(_ *server.Context, _ string, offset int64) (int64, io.ReadCloser, error) {
	d.s.retrs.Add(1)
	ctx, cancel := context.WithCancel(context.Background())
	return d.s.c.Size - offset, &contentReader{s: d.s, off: offset, ctx: ctx, cancel: cancel}, nil
}

func (d *ftpDriver) PutFile(*server.Context, string, io.Reader, int64) (int64, error) {
	return 0, errors.New("read-only")
}

// contentReader reads the content from off at the server's rate.
type contentReader struct {
	s      *FTPServer
	off    int64
	ctx    context.Context
	cancel context.CancelFunc
}

func (r *contentReader) Read(p []byte) (int, error) {
	if r.off >= r.s.c.Size {
		return 0, io.EOF
	}
	n := min(int64(len(p)), r.s.c.Size-r.off, 64<<10)
	if err := r.s.pace.wait(r.ctx, int(n)); err != nil {
		return 0, err
	}
	r.s.c.Fill(p[:n], r.off)
	r.off += n
	r.s.served.Add(n)
	return int(n), nil
}

func (r *contentReader) Close() error {
	r.cancel()
	return nil
}

type anonymous struct{}

func (anonymous) CheckPasswd(_ *server.Context, user, _ string) (bool, error) {
	return user == "anonymous" || user == "ftp", nil
}

type silent struct{}

func (silent) Print(string, any)                   {}
func (silent) Printf(string, string, ...any)       {}
func (silent) PrintCommand(string, string, string) {}
func (silent) PrintResponse(string, int, string)   {}
