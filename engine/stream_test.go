package engine

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"braid/engine/metalink"
	"braid/engine/mirrortest"
	"braid/internal/testkit"
)

// unknown describes a file by name and URLs only, as a plain URL whose
// server sends no length resolves.
func unknown(name string, urls ...string) metalink.File {
	f := metalink.File{Name: name, Size: -1}
	for i, u := range urls {
		f.URLs = append(f.URLs, metalink.URL{URL: u, Priority: i + 1})
	}
	return f
}

func digestOf(b []byte) string {
	s := sha256.Sum256(b)
	return "SHA-256=" + base64.StdEncoding.EncodeToString(s[:])
}

// A body sent chunked, without Content-Length, is streamed to its end;
// the Digest the server sends, when it sends one, verifies it, and a
// Digest that disagrees fails it.
func TestChunkedUnknownSize(t *testing.T) {
	t.Parallel()
	data := testkit.Data(3<<20 + 333)
	for _, tc := range []struct {
		name   string
		digest string
		hashes []metalink.Hash
		fail   bool
	}{
		{name: "without Digest"},
		{name: "with Digest", digest: digestOf(data)},
		{name: "with a wrong Digest", digest: digestOf(data[1:]), fail: true},
		{name: "metalink hash, no Digest", hashes: fileFor("x", data, 0).Hashes},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := []mirrortest.Option{addr(0), mirrortest.Chunked(), mirrortest.NoRanges(), mirrortest.Rate(4 << 20)}
			if tc.digest != "" {
				opts = append(opts, mirrortest.Header("Digest", tc.digest))
			}
			m := mirrortest.New(t, data, opts...)
			dir := t.TempDir()
			f := unknown("f.bin", m.URL())
			f.Hashes = tc.hashes
			c := &Client{}
			dl := c.Do(t.Context(), &Request{Dir: dir, File: f})
			sawUnknown := false
			for {
				s := dl.Snapshot()
				if s.State == StateDownloading && s.Size < 0 {
					sawUnknown = true
				}
				if s.State == StateDone || s.State == StateFailed {
					break
				}
				select {
				case <-dl.Done():
				case <-time.After(5 * time.Millisecond):
				}
			}
			err := dl.Err()
			if tc.fail {
				if !errors.Is(err, ErrHashMismatch) {
					t.Fatalf("err = %v, want ErrHashMismatch", err)
				}
				noFile(t, dir, "f.bin")
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			wantFile(t, dir, "f.bin", data)
			if s := dl.Snapshot(); s.Size != int64(len(data)) || s.Bytes != int64(len(data)) {
				t.Fatalf("final snapshot: size %d, bytes %d; want %d", s.Size, s.Bytes, len(data))
			}
			if !sawUnknown {
				t.Fatal("no snapshot showed the download streaming with size -1")
			}
			if m.BytesServed() != int64(len(data)) {
				t.Fatalf("served %d bytes for %d", m.BytesServed(), len(data))
			}
		})
	}
}

// A stream cut short resumes with a Range from the bytes on disk when the
// server serves ranges, and starts over, saying so, when it does not.
func TestChunkedResume(t *testing.T) {
	t.Parallel()
	data := testkit.Data(2<<20 + 1)
	const cut = 700 << 10
	for _, ranges := range []bool{true, false} {
		name := map[bool]string{true: "with ranges", false: "without ranges"}[ranges]
		t.Run(name, func(t *testing.T) {
			opts := []mirrortest.Option{addr(0), mirrortest.Chunked(), mirrortest.CutFirst(cut),
				mirrortest.Header("Digest", digestOf(data))}
			if !ranges {
				opts = append(opts, mirrortest.NoRanges())
			}
			m := mirrortest.New(t, data, opts...)
			dir := t.TempDir()
			snap, err := get(t, &Client{MaxBackoff: 50 * time.Millisecond}, &Request{Dir: dir, File: unknown("f.bin", m.URL())})
			if err != nil {
				t.Fatal(err)
			}
			wantFile(t, dir, "f.bin", data)
			served := m.BytesServed()
			if ranges {
				if served > int64(len(data))+64<<10 {
					t.Fatalf("served %d bytes for %d after a cut at %d; want the rest only", served, len(data), cut)
				}
				last := m.Ranges()[len(m.Ranges())-1]
				if last.Status != 206 || last.Off == 0 {
					t.Fatalf("the resume asked %+v, want a range from the bytes on disk", last)
				}
			} else {
				if served < int64(len(data))+cut {
					t.Fatalf("served %d bytes: want the file again after the cut", served)
				}
				if r := snap.Mirrors[0].Reason; !strings.Contains(r, "started the file over") {
					t.Fatalf("mirror reason %q; want it to say the file was started over", r)
				}
			}
		})
	}
}

// A file already at the final name is never replaced by a stream.
func TestChunkedKeepsExistingFile(t *testing.T) {
	t.Parallel()
	data := testkit.Data(100 << 10)
	m := mirrortest.New(t, data, addr(0), mirrortest.Chunked(), mirrortest.NoRanges())
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "f.bin"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := get(t, &Client{}, &Request{Dir: dir, File: unknown("f.bin", m.URL())})
	if !errors.Is(err, ErrExists) {
		t.Fatalf("err = %v, want ErrExists", err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "f.bin")); string(b) != "mine" {
		t.Fatalf("the file there was changed")
	}
	if m.BytesServed() != 0 {
		t.Fatalf("fetched %d bytes for a file that cannot be saved", m.BytesServed())
	}
}

// A run killed after the last byte of a stream but before the rename
// resumes at the end of the file: nothing more to fetch, and the file is
// checked and saved.
func TestChunkedResumeAtTheEnd(t *testing.T) {
	t.Parallel()
	data := testkit.Data(300 << 10)
	m := mirrortest.New(t, data, addr(0), mirrortest.Chunked(), mirrortest.Header("Digest", digestOf(data)))
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "f.bin.part"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "f.bin.part.done"), streamMagic, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := get(t, &Client{}, &Request{Dir: dir, File: unknown("f.bin", m.URL())}); err != nil {
		t.Fatal(err)
	}
	wantFile(t, dir, "f.bin", data)
	for _, r := range m.Ranges() {
		if r.Method == "GET" && (r.Status == 200 || r.Status == 206) {
			t.Fatalf("fetched %+v of a file already on disk", r)
		}
	}
}

// A file of unknown size whose mirrors were all unreachable when the
// download began (the network down, the server not up yet) is not
// streamed on one connection once they answer: the first answer says the
// size and that ranges are served, and the file is fetched in pieces from
// every mirror.
func TestUnknownSizeLearnedLate(t *testing.T) {
	t.Parallel()
	data := testkit.Data(3<<20 + 333)
	var addrs []string
	var urls []string
	for i := range 2 {
		l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.%d:0", i+2))
		if err != nil {
			t.Fatal(err)
		}
		addrs = append(addrs, l.Addr().String())
		urls = append(urls, "http://"+l.Addr().String()+"/f.bin")
		l.Close() // refused until the server comes up
	}
	dir := t.TempDir()
	c := &Client{}
	dl := c.Do(t.Context(), &Request{Dir: dir, File: unknown("f.bin", urls...)})
	for dl.Snapshot().State != StateWaiting {
		select {
		case <-dl.Done():
			t.Fatalf("the download ended before its mirrors came up: %v", dl.Err())
		case <-time.After(5 * time.Millisecond):
		}
	}
	var ranged [2]atomic.Int64 // range requests each server answered
	for i, a := range addrs {
		l, err := net.Listen("tcp", a)
		if err != nil {
			t.Skipf("the port was taken meanwhile: %v", err)
		}
		srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Range") != "" {
				ranged[i].Add(1)
			}
			http.ServeContent(slowWriter{w}, r, "f.bin", time.Unix(0, 0), bytes.NewReader(data))
		})}
		go srv.Serve(l)
		t.Cleanup(func() { srv.Close() })
	}
	select {
	case <-dl.Done():
	case <-time.After(time.Minute):
		t.Fatalf("not done a minute after the servers came up: %+v", dl.Snapshot())
	}
	if err := dl.Err(); err != nil {
		t.Fatal(err)
	}
	wantFile(t, dir, "f.bin", data)
	if s := dl.Snapshot(); s.Size != int64(len(data)) {
		t.Errorf("final snapshot: size %d, want %d", s.Size, len(data))
	}
	if ranged[0].Load() == 0 || ranged[1].Load() == 0 {
		t.Errorf("range requests per mirror: %d and %d; a file fetched in pieces asks both", ranged[0].Load(), ranged[1].Load())
	}
	if _, err := os.Stat(filepath.Join(dir, "f.bin.part")); !os.IsNotExist(err) {
		t.Errorf("f.bin.part is left: %v", err)
	}
}

// slowWriter sends at most 32 KiB each 10 ms: about 3 MiB/s a connection,
// so that a file of a few MiB is still being fetched when both mirrors
// are up.
type slowWriter struct{ http.ResponseWriter }

func (w slowWriter) Write(p []byte) (int, error) {
	var n int
	for len(p) > 0 {
		k := min(len(p), 32<<10)
		m, err := w.ResponseWriter.Write(p[:k])
		n += m
		if err != nil {
			return n, err
		}
		p = p[k:]
		time.Sleep(10 * time.Millisecond)
	}
	return n, nil
}
