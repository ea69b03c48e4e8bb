package transport_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"braid/engine/ftptest"
	"braid/engine/transport"
	"braid/engine/transport/transporttest"
	"braid/internal/testkit"
)

func newFTP(t testing.TB, rawURL string, opts transport.Options) *transport.FTPSource {
	t.Helper()
	src, err := transport.NewFTP(rawURL, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { src.Close() })
	return src
}

func TestFTPConformance(t *testing.T) {
	data := testkit.Data(256 << 10)
	transporttest.Run(t, data, func(t *testing.T, data []byte) transport.Source {
		s := ftptest.New(t, ftptest.File("pub/data.bin", data))
		return newFTP(t, s.URL("pub/data.bin"), transport.Options{Size: int64(len(data))})
	})
	t.Run("Cut", func(t *testing.T) {
		transporttest.RunCut(t, data, func(t *testing.T, data []byte, cut int64) transport.Source {
			s := ftptest.New(t, ftptest.File("pub/data.bin", data), ftptest.CutAfter(cut))
			return newFTP(t, s.URL("pub/data.bin"), transport.Options{Size: int64(len(data))})
		})
	})
}

func TestFTPFaults(t *testing.T) {
	data := testkit.Data(10000)
	s := ftptest.New(t, ftptest.File("f.bin", data))
	tests := []struct {
		name string
		url  string
		size int64
		want error
	}{
		{"ok", s.URL("f.bin"), 10000, nil},
		{"unknown size", s.URL("f.bin"), -1, nil},
		{"size mismatch", s.URL("f.bin"), 9999, transport.ErrMismatch},
		{"missing", s.URL("nope.bin"), -1, transport.ErrNotFound},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src := newFTP(t, tc.url, transport.Options{Size: tc.size})
			got, err := readAll(context.Background(), src, 100, 50)
			if tc.want == nil {
				if err != nil || !bytes.Equal(got, data[100:150]) {
					t.Fatalf("read: %v", err)
				}
			} else if !errors.Is(err, tc.want) {
				t.Fatalf("read: %v, want %v", err, tc.want)
			}
			info, err := src.Stat(context.Background())
			if tc.want == nil && (err != nil || info.Size != 10000 || !info.Ranges) {
				t.Fatalf("Stat = %+v, %v", info, err)
			}
			if tc.want != nil && !errors.Is(err, tc.want) {
				t.Fatalf("Stat: %v, want %v", err, tc.want)
			}
		})
	}
}

func TestFTPLogin(t *testing.T) {
	data := testkit.Data(1000)
	s := ftptest.New(t, ftptest.File("f", data), ftptest.User("carol", "pa ss"))
	src := newFTP(t, s.UserURL("f", "carol", "pa ss"), transport.Options{Size: 1000})
	if strings.Contains(src.Mirror(), "carol") || strings.Contains(src.Mirror(), "pa") {
		t.Fatalf("Mirror() = %q shows credentials", src.Mirror())
	}
	if got, err := readAll(context.Background(), src, 0, 1000); err != nil || !bytes.Equal(got, data) {
		t.Fatalf("read as carol: %v", err)
	}
	for name, u := range map[string]string{
		"anonymous":      s.URL("f"),
		"wrong password": s.UserURL("f", "carol", "nope"),
	} {
		if _, err := readAll(context.Background(), newFTP(t, u, transport.Options{Size: 1000}), 0, 10); err == nil {
			t.Errorf("%s: login succeeded", name)
		}
	}
}

func TestFTPBusy(t *testing.T) {
	s := ftptest.New(t, ftptest.File("f", testkit.Data(100000)), ftptest.MaxConns(1))
	src := newFTP(t, s.URL("f"), transport.Options{Size: 100000})
	first, err := src.ReadRange(context.Background(), 0, 100000)
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	_, err = src.ReadRange(context.Background(), 0, 10)
	var re *transport.RetryError
	if !errors.As(err, &re) || re.After <= 0 {
		t.Fatalf("second login on a full server: %v, want a RetryError", err)
	}
}

// TestFTPPoolReuse: ranges read to the end, ranges cut short and Stat all
// share one login; a shared pool serves two sources of one server.
func TestFTPPoolReuse(t *testing.T) {
	data := testkit.Data(200000)
	s := ftptest.New(t, ftptest.File("a", data), ftptest.File("b", data))
	pool := transport.NewFTPPool(2)
	defer pool.Close()
	a := newFTP(t, s.URL("a"), transport.Options{Size: 200000, FTPPool: pool})
	b := newFTP(t, s.URL("b"), transport.Options{Size: 200000, FTPPool: pool})
	for i := range int64(5) {
		src := a
		if i%2 == 1 {
			src = b
		}
		if got, err := readAll(context.Background(), src, i*1000, 1000); err != nil || !bytes.Equal(got, data[i*1000:i*1000+1000]) {
			t.Fatalf("range %d: %v", i, err)
		}
		// Stop a long transfer early: the login must survive it.
		rc, err := src.ReadRange(context.Background(), 0, 200000)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.ReadFull(rc, make([]byte, 10)); err != nil {
			t.Fatal(err)
		}
		if err := rc.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := a.Stat(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := s.Conns(); got != 1 {
		t.Fatalf("%d logins for sequential transfers, want 1", got)
	}
	if got := len(s.Retrs()); got != 10 {
		t.Fatalf("%d RETRs, want 10", got)
	}
}

// TestFTPCancelDiscardsLogin: a transfer ended by its context leaves the
// control connection in an unknown state, so the next range logs in anew.
func TestFTPCancelDiscardsLogin(t *testing.T) {
	data := testkit.Data(1 << 20)
	s := ftptest.New(t, ftptest.File("f", data))
	src := newFTP(t, s.URL("f"), transport.Options{Size: 1 << 20})
	ctx, cancel := context.WithCancel(context.Background())
	rc, err := src.ReadRange(ctx, 0, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadFull(rc, make([]byte, 10)); err != nil {
		t.Fatal(err)
	}
	cancel()
	if _, err := io.Copy(io.Discard, rc); !errors.Is(err, context.Canceled) {
		t.Fatalf("read after cancel: %v", err)
	}
	rc.Close()
	if got, err := readAll(context.Background(), src, 5, 5); err != nil || !bytes.Equal(got, data[5:10]) {
		t.Fatalf("range after cancel: %v", err)
	}
	if got := s.Conns(); got != 2 {
		t.Fatalf("%d logins, want 2 (the cancelled one discarded)", got)
	}
}

func TestFTPCloseLogsOut(t *testing.T) {
	s := ftptest.New(t, ftptest.File("f", testkit.Data(100)))
	src, err := transport.NewFTP(s.URL("f"), transport.Options{Size: 100})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := readAll(context.Background(), src, 0, 100); err != nil {
		t.Fatal(err)
	}
	if err := src.Close(); err != nil {
		t.Fatal(err)
	}
	// The server notices the QUIT; wait for it through its own counter
	// rather than a sleep-and-hope.
	deadline := time.Now().Add(10 * time.Second)
	for s.Open() != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%d control connections still open after Close", s.Open())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestNewDispatch(t *testing.T) {
	tests := []struct {
		url  string
		kind string
		err  error
	}{
		{"http://h.example/f", "http", nil},
		{"HTTPS://h.example/f", "http", nil},
		{"ftp://h.example/pub/f", "ftp", nil},
		{"ftp://u:p@h.example:2121/f", "ftp", nil},
		{"gopher://h.example/f", "", transport.ErrUnsupportedScheme},
		{"magnet:?xt=urn:btih:abc", "", transport.ErrUnsupportedScheme},
		{"/local/file", "", transport.ErrUnsupportedScheme},
		{"ftp://h.example/", "", errors.New("names no file")},
		{"http://", "", errors.New("no host")},
	}
	for _, tc := range tests {
		t.Run(tc.url, func(t *testing.T) {
			src, err := transport.New(tc.url, transport.Options{Size: -1})
			switch {
			case tc.err != nil && err == nil:
				t.Fatalf("no error, want %v", tc.err)
			case tc.err != nil && !errors.Is(err, tc.err) && !strings.Contains(err.Error(), tc.err.Error()):
				t.Fatalf("error %v, want %v", err, tc.err)
			case tc.err == nil && err != nil:
				t.Fatal(err)
			}
			switch s := src.(type) {
			case *transport.HTTPSource:
				if tc.kind != "http" {
					t.Fatalf("got HTTP source")
				}
			case *transport.FTPSource:
				if tc.kind != "ftp" || strings.Contains(s.Mirror(), "u:p") {
					t.Fatalf("got FTP source %s", s.Mirror())
				}
				s.Close()
			case nil:
				if tc.kind != "" {
					t.Fatalf("no source")
				}
			}
		})
	}
}

func BenchmarkFTPSourceRead(b *testing.B) {
	data := testkit.Data(32 << 20)
	s := ftptest.New(b, ftptest.File("f", data))
	src := newFTP(b, s.URL("f"), transport.Options{Size: int64(len(data))})
	buf := make([]byte, 256<<10)
	const seg = 8 << 20
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		for off := int64(0); off < int64(len(data)); off += seg {
			rc, err := src.ReadRange(context.Background(), off, seg)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := io.CopyBuffer(io.Discard, rc, buf); err != nil {
				b.Fatal(err)
			}
			rc.Close()
		}
	}
}
