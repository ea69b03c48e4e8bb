package transport_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"testing"

	"braid/engine/ftptest"
	"braid/engine/mirrortest"
	"braid/engine/transport"
	"braid/internal/testkit"
)

func streamAll(t *testing.T, src transport.Streamer, off int64) ([]byte, error) {
	t.Helper()
	rc, _, err := src.Stream(context.Background(), off)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return io.ReadAll(rc)
}

// Stream reads from an offset to the end, over HTTP (chunked or not) and
// FTP; a server without ranges refuses an offset with ErrNoRanges.
func TestStream(t *testing.T) {
	data := testkit.Data(500<<10 + 3)
	srv := ftptest.New(t, ftptest.File("f.bin", data), ftptest.Anonymous())
	sources := map[string]transport.Streamer{
		"http":    newHTTP(t, mirrortest.New(t, data).URL(), transport.Options{Size: -1}),
		"chunked": newHTTP(t, mirrortest.New(t, data, mirrortest.Chunked()).URL(), transport.Options{Size: -1}),
		"ftp":     newFTP(t, srv.URL("f.bin"), transport.Options{Size: -1}),
	}
	for name, src := range sources {
		t.Run(name, func(t *testing.T) {
			for _, off := range []int64{0, 12345} {
				got, err := streamAll(t, src, off)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, data[off:]) {
					t.Fatalf("from %d: %d bytes, want %d", off, len(got), len(data)-int(off))
				}
			}
		})
	}
	t.Run("no ranges", func(t *testing.T) {
		src := newHTTP(t, mirrortest.New(t, data, mirrortest.Chunked(), mirrortest.NoRanges()).URL(), transport.Options{Size: -1})
		if _, err := streamAll(t, src, 10); !errors.Is(err, transport.ErrNoRanges) {
			t.Fatalf("err = %v, want ErrNoRanges", err)
		}
	})
	t.Run("cut", func(t *testing.T) {
		src := newHTTP(t, mirrortest.New(t, data, mirrortest.Chunked(), mirrortest.CutFirst(100<<10)).URL(), transport.Options{Size: -1})
		if _, err := streamAll(t, src, 0); !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Fatalf("err = %v, want io.ErrUnexpectedEOF for a chunked body cut short", err)
		}
	})
}

// Contiguous ranges from an FTP mirror continue one transfer: one RETR,
// and the server sends the file once.
func TestFTPContinuesTransfer(t *testing.T) {
	data := testkit.Data(3<<20 + 11)
	srv := ftptest.New(t, ftptest.File("f.bin", data), ftptest.Anonymous())
	src := newFTP(t, srv.URL("f.bin"), transport.Options{Size: int64(len(data))})
	const step = 256 << 10
	for off := int64(0); off < int64(len(data)); off += step {
		n := min(step, int64(len(data))-off)
		got, err := readAll(context.Background(), src, off, n)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, data[off:off+n]) {
			t.Fatalf("range at %d differs", off)
		}
	}
	if r := srv.Retrs(); len(r) != 1 {
		t.Fatalf("%d RETRs for contiguous ranges, want 1: %+v", len(r), r)
	}
	if got := srv.BytesServed(); got != int64(len(data)) {
		t.Fatalf("server sent %d bytes for a %d-byte file", got, len(data))
	}
	if srv.Conns() != 1 {
		t.Fatalf("%d logins, want 1", srv.Conns())
	}
}
