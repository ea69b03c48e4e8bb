package transport_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"braid/engine/explain"
	"braid/engine/metalink"
	"braid/engine/mirrortest"
	"braid/engine/transport"
	"braid/engine/transport/transporttest"
	"braid/internal/testkit"
)

func newHTTP(t testing.TB, rawURL string, opts transport.Options) *transport.HTTPSource {
	t.Helper()
	if opts.HTTPClient == nil {
		// A client per test, so that keep-alive counts are the test's own.
		c := transport.NewHTTPClient()
		t.Cleanup(c.CloseIdleConnections)
		opts.HTTPClient = c
	}
	src, err := transport.NewHTTP(rawURL, opts)
	if err != nil {
		t.Fatal(err)
	}
	return src
}

func TestHTTPConformance(t *testing.T) {
	data := testkit.Data(256 << 10)
	transporttest.Run(t, data, func(t *testing.T, data []byte) transport.Source {
		m := mirrortest.New(t, data)
		return newHTTP(t, m.URL(), transport.Options{Size: int64(len(data))})
	})
	t.Run("Cut", func(t *testing.T) {
		transporttest.RunCut(t, data, func(t *testing.T, data []byte, cut int64) transport.Source {
			m := mirrortest.New(t, data, mirrortest.CutAfter(cut))
			return newHTTP(t, m.URL(), transport.Options{Size: int64(len(data))})
		})
	})
}

func readAll(ctx context.Context, src transport.Source, off, n int64) ([]byte, error) {
	rc, err := src.ReadRange(ctx, off, n)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return io.ReadAll(rc)
}

func TestHTTPMirrorFaults(t *testing.T) {
	data := testkit.Data(10000)
	size := int64(len(data))
	tests := []struct {
		name   string
		opts   []mirrortest.Option
		topts  transport.Options
		off, n int64
		want   error // nil: the range must arrive intact
	}{
		{"plain", nil, transport.Options{Size: size}, 100, 200, nil},
		{"unknown size", nil, transport.Options{Size: -1}, 100, 200, nil},
		{"no ranges at 0 serves the start", []mirrortest.Option{mirrortest.NoRanges()}, transport.Options{Size: size}, 0, 300, nil},
		{"no ranges past 0", []mirrortest.Option{mirrortest.NoRanges()}, transport.Options{Size: size}, 100, 200, transport.ErrNoRanges},
		{"wrong size, bigger", []mirrortest.Option{mirrortest.WrongSize(size + 1)}, transport.Options{Size: size}, 100, 200, transport.ErrMismatch},
		{"wrong size, smaller", []mirrortest.Option{mirrortest.WrongSize(size - 1)}, transport.Options{Size: size}, 100, 200, transport.ErrMismatch},
		{"wrong size, no ranges", []mirrortest.Option{mirrortest.NoRanges(), mirrortest.WrongSize(size - 1)}, transport.Options{Size: size}, 0, 200, transport.ErrMismatch},
		{"416 with unknown size", nil, transport.Options{Size: -1}, size + 10, 5, transport.ErrMismatch},
		{"clipped range with unknown size", nil, transport.Options{Size: -1}, size - 5, 10, transport.ErrMismatch},
		{"404", []mirrortest.Option{mirrortest.Status(404)}, transport.Options{Size: size}, 0, 10, transport.ErrNotFound},
		{"410", []mirrortest.Option{mirrortest.Status(410)}, transport.Options{Size: size}, 0, 10, transport.ErrNotFound},
		{"500", []mirrortest.Option{mirrortest.Status(500)}, transport.Options{Size: size}, 0, 10, errors.New("any")},
		{"if-match ok", []mirrortest.Option{mirrortest.Header("ETag", `"v1"`)}, transport.Options{Size: size, IfMatch: `"v1"`}, 10, 10, nil},
		{"if-match stale", []mirrortest.Option{mirrortest.Header("ETag", `"v2"`)}, transport.Options{Size: size, IfMatch: `"v1"`}, 10, 10, transport.ErrMismatch},
		{"if-match without etag", nil, transport.Options{Size: size, IfMatch: `"v1"`}, 10, 10, transport.ErrMismatch},
		{"redirected", nil, transport.Options{Size: size}, 10, 10, nil},
		{"compressed anyway", []mirrortest.Option{mirrortest.Header("Content-Encoding", "gzip")}, transport.Options{Size: size}, 10, 10, transport.ErrMismatch},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := mirrortest.New(t, data, tc.opts...)
			u := m.URL()
			if tc.name == "redirected" {
				u = mirrortest.New(t, nil, mirrortest.Redirect(m.URL())).URL()
			}
			got, err := readAll(context.Background(), newHTTP(t, u, tc.topts), tc.off, tc.n)
			switch {
			case tc.want == nil && err != nil:
				t.Fatalf("error %v", err)
			case tc.want == nil && !bytes.Equal(got, data[tc.off:tc.off+tc.n]):
				t.Fatalf("got %d bytes, not the range", len(got))
			case tc.want != nil && err == nil:
				t.Fatalf("no error, want %v", tc.want)
			case tc.want != nil && tc.want.Error() != "any" && !errors.Is(err, tc.want):
				t.Fatalf("error %v, want %v", err, tc.want)
			}
			if err != nil && !strings.Contains(err.Error(), "127.0.0.1") {
				t.Errorf("error %q does not name the mirror", err)
			}
		})
	}
}

func TestHTTPRetry(t *testing.T) {
	data := testkit.Data(1000)
	date := time.Now().Add(90 * time.Second).UTC().Format(http.TimeFormat)
	tests := []struct {
		name     string
		opts     []mirrortest.Option
		min, max time.Duration
	}{
		{"429 seconds", []mirrortest.Option{mirrortest.Status(429), mirrortest.RetryAfter("7")}, 7 * time.Second, 7 * time.Second},
		{"503 date", []mirrortest.Option{mirrortest.Status(503), mirrortest.RetryAfter(date)}, 80 * time.Second, 90 * time.Second},
		{"503 garbage", []mirrortest.Option{mirrortest.Status(503), mirrortest.RetryAfter("soon")}, transport.DefaultRetryAfter, transport.DefaultRetryAfter},
		{"503 huge", []mirrortest.Option{mirrortest.Status(503), mirrortest.RetryAfter("99999999999999999")}, 24 * time.Hour, 24 * time.Hour},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := mirrortest.New(t, data, tc.opts...)
			src := newHTTP(t, m.URL(), transport.Options{Size: 1000})
			for what, err := range map[string]error{
				"ReadRange": func() error { _, err := src.ReadRange(context.Background(), 0, 10); return err }(),
				"Stat":      func() error { _, err := src.Stat(context.Background()); return err }(),
			} {
				var re *transport.RetryError
				if !errors.As(err, &re) {
					t.Fatalf("%s: %v, want a *RetryError", what, err)
				}
				if re.After < tc.min || re.After > tc.max {
					t.Fatalf("%s: After = %v, want %v..%v", what, re.After, tc.min, tc.max)
				}
			}
		})
	}
	t.Run("MaxConns", func(t *testing.T) {
		m := mirrortest.New(t, testkit.Data(100000), mirrortest.MaxConns(1), mirrortest.StallAfter(10), mirrortest.RetryAfter("3"))
		src := newHTTP(t, m.URL(), transport.Options{Size: 100000})
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		first, err := src.ReadRange(ctx, 0, 1000)
		if err != nil {
			t.Fatal(err)
		}
		defer first.Close()
		_, err = src.ReadRange(context.Background(), 5000, 1000)
		var re *transport.RetryError
		if !errors.As(err, &re) || re.After != 3*time.Second {
			t.Fatalf("second connection: %v, want RetryError after 3s", err)
		}
	})
}

func TestHTTPKeepAlive(t *testing.T) {
	data := testkit.Data(200000)
	m := mirrortest.New(t, data)
	src := newHTTP(t, m.URL(), transport.Options{Size: int64(len(data))})
	for i := range int64(10) {
		got, err := readAll(context.Background(), src, i*20000, 20000)
		if err != nil || !bytes.Equal(got, data[i*20000:(i+1)*20000]) {
			t.Fatalf("range %d: %v", i, err)
		}
	}
	if _, err := src.Stat(context.Background()); err != nil {
		t.Fatal(err)
	}
	if m.Requests() != 11 || m.Conns() != 1 {
		t.Fatalf("%d requests over %d connections, want 11 over 1", m.Requests(), m.Conns())
	}
}

func TestHTTPCredentials(t *testing.T) {
	data := testkit.Data(5000)
	// Elsewhere on another address, and elsewhere on the same address but
	// another port (net/http itself would forward to the latter).
	for _, addr := range []string{"127.0.0.2", "127.0.0.1"} {
		t.Run(addr, func(t *testing.T) {
			other := mirrortest.New(t, data, mirrortest.Addr(addr))
			origin := mirrortest.New(t, nil, mirrortest.BasicAuth("alice", "s3cret"), mirrortest.Redirect(other.URL()))
			u := strings.Replace(origin.URL(), "http://", "http://alice:s3cret@", 1)
			src := newHTTP(t, u, transport.Options{Size: int64(len(data))})
			if strings.Contains(src.Mirror(), "alice") || strings.Contains(src.Mirror(), "s3cret") {
				t.Fatalf("Mirror() = %q shows credentials", src.Mirror())
			}
			got, err := readAll(context.Background(), src, 0, 100)
			if err != nil || !bytes.Equal(got, data[:100]) {
				t.Fatalf("read through redirect: %v", err)
			}
			if _, err := src.Stat(context.Background()); err != nil {
				t.Fatal(err)
			}
			asked := 0
			for _, r := range origin.Ranges() {
				if r.Status == http.StatusUnauthorized && r.User == "" {
					asked++ // the server asks once; the login is then sent at once
					continue
				}
				if r.User != "alice" || r.Status != http.StatusFound {
					t.Errorf("origin saw %+v: want alice's credentials and a redirect", r)
				}
			}
			if asked > 1 {
				t.Errorf("origin asked for the login %d times, want at most once", asked)
			}
			if len(other.Ranges()) != 2 {
				t.Fatalf("other host saw %d requests, want 2", len(other.Ranges()))
			}
			for _, r := range other.Ranges() {
				if r.User != "" {
					t.Errorf("credentials leaked to %s: %+v", other.Host(), r)
				}
			}
		})
	}
	t.Run("same origin keeps them", func(t *testing.T) {
		m := mirrortest.New(t, data, mirrortest.BasicAuth("bob", "pw"))
		u := strings.Replace(m.URL(), "http://", "http://bob:pw@", 1)
		got, err := readAll(context.Background(), newHTTP(t, u, transport.Options{Size: 5000}), 10, 10)
		if err != nil || !bytes.Equal(got, data[10:20]) {
			t.Fatalf("authorised read: %v", err)
		}
		_, err = readAll(context.Background(), newHTTP(t, m.URL(), transport.Options{Size: 5000}), 10, 10)
		if err == nil {
			t.Fatal("read without credentials succeeded on a protected mirror")
		}
	})
}

func TestHTTPStat(t *testing.T) {
	data := testkit.Data(3000)
	sum := sha256.Sum256(data)
	digest := "SHA-256=" + base64.StdEncoding.EncodeToString(sum[:])
	headers := []mirrortest.Option{
		mirrortest.Header("ETag", `"abc"`),
		mirrortest.Header("Digest", digest),
		mirrortest.Header("Link", `<http://m1.example/f>; rel=duplicate; pri=1; pref`),
		mirrortest.Header("Link", `<http://m2.example/f>; rel=duplicate; geo=de`),
		mirrortest.Name("report 2024.pdf"),
	}
	tests := []struct {
		name   string
		extra  []mirrortest.Option
		ranges bool
	}{
		{"head", nil, true},
		{"head refused", []mirrortest.Option{mirrortest.NoHead()}, true},
		{"head refused, no ranges", []mirrortest.Option{mirrortest.NoHead(), mirrortest.NoRanges()}, false},
		{"no ranges", []mirrortest.Option{mirrortest.NoRanges()}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := mirrortest.New(t, data, append(headers, tc.extra...)...)
			info, err := newHTTP(t, m.URL(), transport.Options{Size: 3000}).Stat(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if info.Size != 3000 || info.Ranges != tc.ranges || info.ETag != `"abc"` || info.Name != "report 2024.pdf" {
				t.Fatalf("Stat = %+v", info)
			}
			wantHash := metalink.Hash{Type: "sha-256", Value: hexOf(sum[:])}
			if len(info.Digests) != 1 || info.Digests[0] != wantHash {
				t.Fatalf("Digests = %+v, want %+v", info.Digests, wantHash)
			}
			if len(info.Links) != 2 || info.Links[0].URL != "http://m1.example/f" || !info.Links[0].Pref || info.Links[1].Geo != "DE" {
				t.Fatalf("Links = %+v", info.Links)
			}
		})
	}
	t.Run("mismatch", func(t *testing.T) {
		m := mirrortest.New(t, data, mirrortest.Header("ETag", `"abc"`))
		for _, opts := range []transport.Options{{Size: 2999}, {Size: 3000, IfMatch: `"xyz"`}} {
			info, err := newHTTP(t, m.URL(), opts).Stat(context.Background())
			if !errors.Is(err, transport.ErrMismatch) || info.Size != 3000 {
				t.Errorf("Stat with %+v: size %d, %v; want the info and ErrMismatch", opts, info.Size, err)
			}
		}
	})
	t.Run("missing", func(t *testing.T) {
		m := mirrortest.New(t, data, mirrortest.Status(404))
		if _, err := newHTTP(t, m.URL(), transport.Options{Size: -1}).Stat(context.Background()); !errors.Is(err, transport.ErrNotFound) {
			t.Fatalf("Stat of a 404: %v", err)
		}
	})
}

func hexOf(b []byte) string {
	const digits = "0123456789abcdef"
	out := make([]byte, 0, 2*len(b))
	for _, c := range b {
		out = append(out, digits[c>>4], digits[c&15])
	}
	return string(out)
}

// TestHTTPRequestHeaders checks what every request says about itself; a
// plain handler records the headers mirrortest does not log.
func TestHTTPRequestHeaders(t *testing.T) {
	seen := make(chan http.Header, 4)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen <- r.Header.Clone()
		http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(make([]byte, 100)))
	}))
	defer srv.Close()
	tests := []struct {
		name string
		opts transport.Options
		ua   string
	}{
		{"defaults", transport.Options{Size: 100}, transport.DefaultUserAgent},
		{"custom", transport.Options{Size: 100, UserAgent: "x/1", Referer: "http://origin.example/f", IfMatch: `"e"`}, "x/1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src := newHTTP(t, srv.URL+"/f", tc.opts)
			_, _ = readAll(context.Background(), src, 0, 10)
			h := <-seen
			if h.Get("User-Agent") != tc.ua || h.Get("Range") != "bytes=0-9" || h.Get("Accept-Encoding") != "identity" {
				t.Errorf("GET headers %v", h)
			}
			if h.Get("Referer") != tc.opts.Referer || h.Get("If-Match") != tc.opts.IfMatch {
				t.Errorf("Referer %q If-Match %q, want %q %q", h.Get("Referer"), h.Get("If-Match"), tc.opts.Referer, tc.opts.IfMatch)
			}
			_, _ = src.Stat(context.Background())
			h = <-seen
			if h.Get("Want-Digest") == "" || h.Get("User-Agent") != tc.ua {
				t.Errorf("HEAD headers %v", h)
			}
		})
	}
}

func TestHTTPFetch(t *testing.T) {
	doc := []byte(`<?xml version="1.0"?><metalink xmlns="urn:ietf:params:xml:ns:metalink"/>`)
	m := mirrortest.New(t, doc, mirrortest.Header("Content-Type", "application/metalink4+xml; charset=utf-8"))
	src := newHTTP(t, m.URL(), transport.Options{Size: -1})
	p, body, err := src.Fetch(context.Background(), 1<<20)
	if err != nil || !bytes.Equal(body, doc) || p.ContentType != "application/metalink4+xml" {
		t.Fatalf("Fetch: %v, %q, %+v", err, body, p)
	}
	if _, _, err := src.Fetch(context.Background(), 10); err == nil {
		t.Fatal("Fetch past the limit succeeded")
	}
}

// TestHTTPErrorNamesURLOnce: an error of a request names the mirror's URL
// once, then the request and its cause: not again in Go's `Head "URL"`.
// The cause is still there for errors.As and explain.
func TestHTTPErrorNamesURLOnce(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	u := "http://" + l.Addr().String() + "/f.bin"
	l.Close() // nothing listens: every request is refused
	src := newHTTP(t, u, transport.Options{Size: -1})
	ctx := context.Background()
	_, probeErr := src.Probe(ctx)
	_, _, fetchErr := src.Fetch(ctx, 1<<20)
	_, rangeErr := src.ReadRange(ctx, 0, 10)
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"Probe", probeErr, u + ": dial tcp "},
		{"Fetch", fetchErr, u + ": dial tcp "},
		{"ReadRange", rangeErr, u + ": bytes 0-9: dial tcp "},
	} {
		if tc.err == nil {
			t.Errorf("%s of a closed port succeeded", tc.name)
			continue
		}
		msg := tc.err.Error()
		if !strings.HasPrefix(msg, tc.want) || strings.Count(msg, u) != 1 {
			t.Errorf("%s: %q, want it to begin %q and name the URL once", tc.name, msg, tc.want)
		}
		var ue *url.Error
		if !errors.As(tc.err, &ue) || explain.Of(tc.err) != explain.Refused {
			t.Errorf("%s: %v: the cause is lost (url.Error %v, kind %v)", tc.name, tc.err, ue != nil, explain.Of(tc.err))
		}
	}
}

// A probe's refusal names the URL and the server's answer, not the
// request that drew it: "URL: 404 Not Found: the server does not have the
// file", whether HEAD was answered (404) or the first byte's GET (a 403 to
// HEAD is asked again with GET, as some CDNs refuse only HEAD).
func TestHTTPProbeRefusalIsASentence(t *testing.T) {
	for _, tc := range []struct {
		status int
		want   string
	}{
		{http.StatusNotFound, "404 Not Found: the server does not have the file"},
		{http.StatusForbidden, "403 Forbidden: the server refused access"},
	} {
		m := mirrortest.New(t, testkit.Data(100), mirrortest.Status(tc.status))
		_, err := newHTTP(t, m.URL(), transport.Options{Size: -1}).Probe(context.Background())
		if want := m.URL() + ": " + tc.want; err == nil || err.Error() != want {
			t.Errorf("Probe: %v, want %q", err, want)
		}
	}
}

func BenchmarkHTTPSourceRead(b *testing.B) {
	data := testkit.Data(32 << 20)
	m := mirrortest.New(b, data)
	src := newHTTP(b, m.URL(), transport.Options{Size: int64(len(data))})
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
