package mirrortest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

func testData(n int) []byte { return Bytes(n, 12) }

// get performs one request and returns the response and its whole body.
func get(t *testing.T, client *http.Client, method, url string, hdr ...string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	if client == nil {
		client = &http.Client{}
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: read body: %v", method, url, err)
	}
	return resp, body
}

func TestRangeSemantics(t *testing.T) {
	data := testData(10000)
	m := New(t, data, Header("ETag", `"v1"`))
	tests := []struct {
		name   string
		hdr    []string
		status int
		body   []byte
		off, n int64 // expected log entry
	}{
		{"whole", nil, 200, data, 0, 10000},
		{"start", []string{"Range", "bytes=0-99"}, 206, data[:100], 0, 100},
		{"middle", []string{"Range", "bytes=5000-5999"}, 206, data[5000:6000], 5000, 1000},
		{"end open", []string{"Range", "bytes=9990-"}, 206, data[9990:], 9990, 10},
		{"suffix", []string{"Range", "bytes=-10"}, 206, data[9990:], 9990, 10},
		{"past end clipped", []string{"Range", "bytes=9999-20000"}, 206, data[9999:], 9999, 1},
		{"unsatisfiable", []string{"Range", "bytes=10000-10001"}, 416, nil, 0, 0},
		{"if-range match", []string{"Range", "bytes=10-19", "If-Range", `"v1"`}, 206, data[10:20], 10, 10},
		{"if-range stale", []string{"Range", "bytes=10-19", "If-Range", `"v0"`}, 200, data, 0, 10000},
		{"if-match stale", []string{"Range", "bytes=10-19", "If-Match", `"v0"`}, 412, nil, 0, 0},
		{"if-match ok", []string{"Range", "bytes=10-19", "If-Match", `"v1"`}, 206, data[10:20], 10, 10},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := len(m.Ranges())
			resp, body := get(t, nil, "GET", m.URL(), tc.hdr...)
			if resp.StatusCode != tc.status {
				t.Fatalf("status %d, want %d", resp.StatusCode, tc.status)
			}
			if tc.status < 300 && !bytes.Equal(body, tc.body) {
				t.Fatalf("body: got %d bytes, want %d (or content differs)", len(body), len(tc.body))
			}
			log := m.Ranges()
			if len(log) != before+1 {
				t.Fatalf("log has %d entries, want %d", len(log), before+1)
			}
			got := log[before]
			if got.Status != tc.status || got.Off != tc.off || got.N != tc.n {
				t.Fatalf("log entry %+v, want status %d off %d n %d", got, tc.status, tc.off, tc.n)
			}
			if tc.status < 300 && got.Sent != int64(len(tc.body)) {
				t.Fatalf("log Sent %d, want %d", got.Sent, len(tc.body))
			}
		})
	}
}

func TestCountersAndKeepAlive(t *testing.T) {
	data := testData(3000)
	m := New(t, data)
	client := &http.Client{Transport: &http.Transport{}}
	get(t, client, "GET", m.URL(), "Range", "bytes=0-999")
	get(t, client, "GET", m.URL(), "Range", "bytes=1000-2999")
	get(t, client, "HEAD", m.URL())
	if got := m.Requests(); got != 3 {
		t.Errorf("Requests = %d, want 3", got)
	}
	if got := m.BytesServed(); got != 3000 {
		t.Errorf("BytesServed = %d, want 3000", got)
	}
	if got := m.Conns(); got != 1 {
		t.Errorf("Conns = %d, want 1 (keep-alive)", got)
	}
	log := m.Ranges()
	if log[2].Method != "HEAD" || log[2].N != 0 || log[2].Status != 200 {
		t.Errorf("HEAD log entry %+v", log[2])
	}
	for i, r := range log {
		// The last handler may still be returning; earlier ones on the same
		// connection have returned before the next request was read.
		if r.Remote == "" || (i < 2 && !r.Done) {
			t.Errorf("entry %d: %+v: want Remote and Done", i, r)
		}
	}
}

func TestAddr(t *testing.T) {
	m := New(t, testData(10), Addr("127.0.0.2"))
	if !strings.HasPrefix(m.Host(), "127.0.0.2:") {
		t.Fatalf("Host = %s, want 127.0.0.2:port", m.Host())
	}
	_, body := get(t, nil, "GET", m.URL())
	if len(body) != 10 {
		t.Fatalf("got %d bytes", len(body))
	}
}

func TestNoRanges(t *testing.T) {
	data := testData(5000)
	m := New(t, data, NoRanges())
	resp, body := get(t, nil, "GET", m.URL(), "Range", "bytes=100-199")
	if resp.StatusCode != 200 || !bytes.Equal(body, data) {
		t.Fatalf("status %d, %d bytes: want 200 and the whole file", resp.StatusCode, len(body))
	}
	if v := resp.Header.Get("Accept-Ranges"); v != "" {
		t.Fatalf("Accept-Ranges = %q, want none", v)
	}
}

func TestWrongSize(t *testing.T) {
	data := testData(1000)
	orig := bytes.Clone(data)
	defer func() {
		if !bytes.Equal(data, orig) {
			t.Error("WrongSize modified the caller's data")
		}
	}()
	for _, n := range []int64{600, 1500} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			m := New(t, data, WrongSize(n))
			resp, body := get(t, nil, "GET", m.URL())
			if resp.ContentLength != n || int64(len(body)) != n {
				t.Fatalf("Content-Length %d, body %d, want %d", resp.ContentLength, len(body), n)
			}
			common := min(n, 1000)
			if !bytes.Equal(body[:common], data[:common]) {
				t.Fatal("common prefix differs")
			}
			resp, _ = get(t, nil, "GET", m.URL(), "Range", "bytes=0-0")
			if want := fmt.Sprintf("bytes 0-0/%d", n); resp.Header.Get("Content-Range") != want {
				t.Fatalf("Content-Range %q, want %q", resp.Header.Get("Content-Range"), want)
			}
		})
	}
}

func TestStallAfter(t *testing.T) {
	data := testData(100000)
	m := New(t, data, StallAfter(1234))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", m.URL(), nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	buf := make([]byte, 1234)
	if _, err := io.ReadFull(resp.Body, buf); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf, data[:1234]) {
		t.Fatal("bytes before the stall differ")
	}
	cancel()
	if _, err := resp.Body.Read(buf); err == nil {
		t.Fatal("read after the stall returned data")
	}
	m.Close() // waits for the handler
	if got := m.BytesServed(); got != 1234 {
		t.Fatalf("BytesServed = %d, want 1234", got)
	}
}

func TestCutAfter(t *testing.T) {
	data := testData(100000)
	m := New(t, data, CutAfter(777))
	resp, err := http.Get(m.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("read: %v, want unexpected EOF", err)
	}
	if !bytes.Equal(body, data[:777]) {
		t.Fatalf("got %d bytes before the cut, want 777", len(body))
	}
}

func TestStallReleasedByClose(t *testing.T) {
	m := New(t, testData(1000), StallAfter(0))
	resp, err := http.Get(m.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	done := make(chan error, 1)
	go func() {
		_, err := io.ReadAll(resp.Body)
		done <- err
	}()
	m.Close()
	if err := <-done; err == nil {
		t.Fatal("read of a stalled body ended without error after Close")
	}
}

func TestCorrupt(t *testing.T) {
	data := testData(1000)
	bad := map[int]bool{1: true, 3: true}
	m := New(t, data, Corrupt(100, func(p int) bool { return bad[p] }))
	tests := []struct {
		name    string
		rng     string
		off     int
		flipped []int // file offsets expected to differ
	}{
		{"whole", "", 0, []int{100, 300}},
		{"range over piece 3", "bytes=250-450", 250, []int{300}},
		{"range inside piece 1 after its first byte", "bytes=150-199", 150, nil},
		{"range starting at piece 1", "bytes=100-100", 100, []int{100}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var hdr []string
			if tc.rng != "" {
				hdr = []string{"Range", tc.rng}
			}
			_, body := get(t, nil, "GET", m.URL(), hdr...)
			var diff []int
			for i := range body {
				if body[i] != data[tc.off+i] {
					diff = append(diff, tc.off+i)
				}
			}
			if fmt.Sprint(diff) != fmt.Sprint(tc.flipped) {
				t.Fatalf("differing offsets %v, want %v", diff, tc.flipped)
			}
		})
	}
}

func TestDown(t *testing.T) {
	m := New(t, testData(10), Down())
	_, err := http.Get(m.URL())
	if !errors.Is(err, syscall.ECONNREFUSED) {
		t.Fatalf("GET on a down mirror: %v, want connection refused", err)
	}
}

func TestMaxConns(t *testing.T) {
	m := New(t, testData(1000), MaxConns(1), StallAfter(10), RetryAfter("7"))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", m.URL(), nil)
	first, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer first.Body.Close()
	if first.StatusCode != 200 {
		t.Fatalf("first request: %d", first.StatusCode)
	}
	resp, _ := get(t, nil, "GET", m.URL())
	if resp.StatusCode != 503 || resp.Header.Get("Retry-After") != "7" {
		t.Fatalf("second request: %d Retry-After %q, want 503 and 7", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
}

func TestHeadersPathName(t *testing.T) {
	m := New(t, testData(10),
		Header("Link", `<http://a/x>; rel=duplicate`),
		Header("Link", `<http://b/x>; rel=duplicate`),
		Path("dir/f.iso"),
		Name("Grüße.iso"))
	if !strings.HasSuffix(m.URL(), "/dir/f.iso") {
		t.Fatalf("URL %s", m.URL())
	}
	resp, _ := get(t, nil, "HEAD", m.URL())
	if got := resp.Header.Values("Link"); len(got) != 2 {
		t.Fatalf("Link values %q, want 2", got)
	}
	_, params, err := mime.ParseMediaType(resp.Header.Get("Content-Disposition"))
	if err != nil || params["filename"] != "Grüße.iso" {
		t.Fatalf("Content-Disposition %q: %v %q", resp.Header.Get("Content-Disposition"), err, params["filename"])
	}
	resp, _ = get(t, nil, "GET", strings.TrimSuffix(m.URL(), "f.iso")+"g.iso")
	if resp.StatusCode != 404 {
		t.Fatalf("other path: %d, want 404", resp.StatusCode)
	}
}

func TestStatusRedirectNoHeadAuth(t *testing.T) {
	data := testData(50)
	target := New(t, data)
	tests := []struct {
		name   string
		opts   []Option
		method string
		user   string
		status int
	}{
		{"404", []Option{Status(404)}, "GET", "", 404},
		{"429", []Option{Status(429)}, "GET", "", 429},
		{"redirect followed", []Option{Redirect(target.URL())}, "GET", "", 200},
		{"no head", []Option{NoHead()}, "HEAD", "", 405},
		{"no head GET ok", []Option{NoHead()}, "GET", "", 200},
		{"auth missing", []Option{BasicAuth("u", "p")}, "GET", "", 401},
		{"auth given", []Option{BasicAuth("u", "p")}, "GET", "u", 200},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := New(t, data, tc.opts...)
			url := m.URL()
			if tc.user != "" {
				url = strings.Replace(url, "http://", "http://"+tc.user+":p@", 1)
			}
			resp, body := get(t, nil, tc.method, url)
			if resp.StatusCode != tc.status {
				t.Fatalf("status %d, want %d", resp.StatusCode, tc.status)
			}
			if tc.status == 200 && tc.method == "GET" && !bytes.Equal(body, data) {
				t.Fatal("body differs")
			}
			if tc.user != "" && m.Ranges()[0].User != tc.user {
				t.Fatalf("logged user %q", m.Ranges()[0].User)
			}
		})
	}
}

// TestRate checks the throttle's floor: at 100 kB/s, 20 kB cannot arrive in
// under 150 ms, whether over one connection or split across two (the bucket
// is shared). Only a lower bound is asserted, so a slow machine cannot fail it.
func TestRate(t *testing.T) {
	data := testData(20000)
	for _, conns := range []int{1, 2} {
		t.Run(fmt.Sprint(conns), func(t *testing.T) {
			m := New(t, data, Rate(100000))
			start := time.Now()
			var wg sync.WaitGroup
			per := len(data) / conns
			for i := range conns {
				wg.Go(func() {
					req, _ := http.NewRequest("GET", m.URL(), nil)
					req.Header.Set("Range", fmt.Sprintf("bytes=%d-%d", i*per, (i+1)*per-1))
					resp, err := (&http.Client{Transport: &http.Transport{}}).Do(req)
					if err != nil {
						t.Errorf("conn %d: %v", i, err)
						return
					}
					defer resp.Body.Close()
					body, err := io.ReadAll(resp.Body)
					if err != nil || !bytes.Equal(body, data[i*per:(i+1)*per]) {
						t.Errorf("conn %d: body differs (%v)", i, err)
					}
				})
			}
			wg.Wait()
			if el := time.Since(start); el < 150*time.Millisecond {
				t.Fatalf("20 kB at 100 kB/s took %v", el)
			}
		})
	}
}

// TestGauge: one Gauge shared by two mirrors sees responses in progress
// across both; requests sent one after another, each after the last one's
// body ended, are never seen overlapping, whether read through a kept-alive
// connection or new ones.
func TestGauge(t *testing.T) {
	data := testData(300000)
	t.Run("sequential", func(t *testing.T) {
		var g Gauge
		a, b := New(t, data, Count(&g), Addr("127.0.0.2")), New(t, data, Count(&g), Addr("127.0.0.3"))
		client := &http.Client{Transport: &http.Transport{}}
		for i := range 20 {
			m := []*Mirror{a, b}[i%2]
			get(t, client, "HEAD", m.URL())
			_, body := get(t, client, "GET", m.URL(), "Range", fmt.Sprintf("bytes=%d-%d", i*1000, i*1000+99999))
			if !bytes.Equal(body, data[i*1000:i*1000+100000]) {
				t.Fatalf("request %d: body differs", i)
			}
		}
		if p := g.Peak(); p != 1 {
			t.Fatalf("shared gauge peak %d for requests one after another, want 1", p)
		}
		if p := a.InFlight().Peak(); p != 1 {
			t.Fatalf("mirror gauge peak %d, want 1", p)
		}
	})
	t.Run("overlapping", func(t *testing.T) {
		var g Gauge
		ms := []*Mirror{
			New(t, data, Count(&g), StallAfter(10), Addr("127.0.0.2")),
			New(t, data, Count(&g), StallAfter(10), Addr("127.0.0.3")),
		}
		for _, m := range ms {
			resp, err := http.Get(m.URL())
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			if _, err := io.ReadFull(resp.Body, make([]byte, 10)); err != nil {
				t.Fatal(err)
			}
		}
		if n, p := g.Now(), g.Peak(); n != 2 || p != 2 {
			t.Fatalf("two stalled responses: gauge now %d, peak %d; want 2 and 2", n, p)
		}
		for _, m := range ms {
			m.Close() // waits for the handlers
		}
		if n := g.Now(); n != 0 {
			t.Fatalf("gauge at %d after the mirrors closed", n)
		}
	})
}

func TestRefererLogged(t *testing.T) {
	m := New(t, testData(100))
	get(t, nil, "GET", m.URL(), "Referer", "http://origin.test/f")
	get(t, nil, "HEAD", m.URL())
	log := m.Ranges()
	if log[0].Referer != "http://origin.test/f" || log[1].Referer != "" {
		t.Fatalf("logged Referers %q and %q", log[0].Referer, log[1].Referer)
	}
}

// BenchmarkRate measures the throughput of one throttled connection at
// 40 MB/s; mb/s should come close to 40 (it was about 25 before a late
// sender could catch up).
func BenchmarkRate(b *testing.B) {
	const rate = 40_000_000
	data := testData(8 << 20)
	m := New(b, data, Rate(rate))
	client := &http.Client{Transport: &http.Transport{}}
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for b.Loop() {
		resp, err := client.Get(m.URL())
		if err != nil {
			b.Fatal(err)
		}
		n, err := io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if err != nil || n != int64(len(data)) {
			b.Fatalf("read %d bytes: %v", n, err)
		}
	}
}
