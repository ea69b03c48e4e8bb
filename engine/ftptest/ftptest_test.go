package ftptest

import (
	"bytes"
	"errors"
	"io"
	"net/textproto"
	"testing"

	"github.com/jlaffaye/ftp"
)

func dial(t *testing.T, s *Server, user, pass string) *ftp.ServerConn {
	t.Helper()
	c, err := ftp.Dial(s.Addr())
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	t.Cleanup(func() { c.Quit() })
	if err := c.Login(user, pass); err != nil {
		t.Fatalf("login %s: %v", user, err)
	}
	return c
}

func retr(t *testing.T, c *ftp.ServerConn, p string, off uint64) []byte {
	t.Helper()
	r, err := c.RetrFrom(p, off)
	if err != nil {
		t.Fatalf("RETR %s from %d: %v", p, off, err)
	}
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	if err := r.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	return b
}

func TestServe(t *testing.T) {
	data := bytes.Repeat([]byte("0123456789"), 10000)
	s := New(t, File("pub/a.bin", data))
	c := dial(t, s, "anonymous", "x@example.com")
	if size, err := c.FileSize("/pub/a.bin"); err != nil || size != int64(len(data)) {
		t.Fatalf("SIZE = %d, %v", size, err)
	}
	if got := retr(t, c, "/pub/a.bin", 0); !bytes.Equal(got, data) {
		t.Fatalf("RETR: %d bytes, want %d", len(got), len(data))
	}
	if got := retr(t, c, "/pub/a.bin", 12345); !bytes.Equal(got, data[12345:]) {
		t.Fatalf("REST 12345: %d bytes", len(got))
	}
	if got, want := s.BytesServed(), int64(2*len(data)-12345); got != want {
		t.Errorf("BytesServed = %d, want %d", got, want)
	}
	if got := s.Retrs(); len(got) != 2 || got[1].Offset != 12345 || got[1].Path != "/pub/a.bin" {
		t.Errorf("Retrs = %+v", got)
	}
	if got := s.Conns(); got != 1 {
		t.Errorf("Conns = %d, want 1", got)
	}
	_, err := c.FileSize("/pub/missing.bin")
	var te *textproto.Error
	if !errors.As(err, &te) {
		t.Fatalf("SIZE of a missing file: %v, want an FTP error reply", err)
	}
}

func TestLogins(t *testing.T) {
	tests := []struct {
		name       string
		opts       []Option
		user, pass string
		ok         bool
	}{
		{"anonymous by default", nil, "anonymous", "guest@", true},
		{"ftp is anonymous", nil, "ftp", "x", true},
		{"user", []Option{User("u", "p")}, "u", "p", true},
		{"wrong password", []Option{User("u", "p")}, "u", "q", false},
		{"anonymous refused with a user", []Option{User("u", "p")}, "anonymous", "guest@", false},
		{"anonymous alongside a user", []Option{User("u", "p"), Anonymous()}, "anonymous", "guest@", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := New(t, tc.opts...)
			c, err := ftp.Dial(s.Addr())
			if err != nil {
				t.Fatal(err)
			}
			defer c.Quit()
			if err := c.Login(tc.user, tc.pass); (err == nil) != tc.ok {
				t.Fatalf("login: %v, want ok=%v", err, tc.ok)
			}
		})
	}
}

func TestCutAfter(t *testing.T) {
	data := bytes.Repeat([]byte("x"), 5000)
	s := New(t, File("f", data), CutAfter(100))
	c := dial(t, s, "anonymous", "guest@")
	if got := retr(t, c, "/f", 10); len(got) != 100 {
		t.Fatalf("got %d bytes, want 100", len(got))
	}
}

func TestMaxConns(t *testing.T) {
	s := New(t, File("f", []byte("x")), MaxConns(1))
	dial(t, s, "anonymous", "guest@")
	_, err := ftp.Dial(s.Addr())
	var te *textproto.Error
	if !errors.As(err, &te) || te.Code != 421 {
		t.Fatalf("second connection: %v, want a 421 reply", err)
	}
}

func TestClose(t *testing.T) {
	s := New(t, File("f", []byte("x")))
	c := dial(t, s, "anonymous", "guest@")
	s.Close()
	if err := c.NoOp(); err == nil {
		t.Fatal("NOOP on a closed server succeeded")
	}
	if _, err := ftp.Dial(s.Addr()); err == nil {
		t.Fatal("dial after Close succeeded")
	}
}
