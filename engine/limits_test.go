package engine

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"braid/engine/ftptest"
	"braid/engine/mirrortest"
	"braid/engine/piece"
	"braid/engine/transport"
	"braid/internal/testkit"
)

// wire is an http.RoundTripper that watches the engine's HTTP traffic from
// the client's side: the requests in progress (from RoundTrip until the
// body is closed) and, for every answer, the body bytes the engine read.
type wire struct {
	next http.RoundTripper

	mu        sync.Mutex
	now, peak int
	answers   []*answer
}

// answer is one response as the engine consumed it.
type answer struct {
	host   string
	method string
	rng    string // the Range header sent
	length int64  // Content-Length, -1 when unknown
	read   int64  // body bytes the engine read
	closed bool
}

func newWire() *wire { return &wire{next: transport.NewHTTPClient().Transport} }

func (w *wire) client() *http.Client { return &http.Client{Transport: w} }

func (w *wire) RoundTrip(r *http.Request) (*http.Response, error) {
	w.mu.Lock()
	w.now++
	w.peak = max(w.peak, w.now)
	w.mu.Unlock()
	resp, err := w.next.RoundTrip(r)
	if err != nil {
		w.mu.Lock()
		w.now--
		w.mu.Unlock()
		return nil, err
	}
	a := &answer{host: r.URL.Host, method: r.Method, rng: r.Header.Get("Range"), length: resp.ContentLength}
	w.mu.Lock()
	w.answers = append(w.answers, a)
	w.mu.Unlock()
	resp.Body = &wireBody{ReadCloser: resp.Body, w: w, a: a}
	return resp, nil
}

// Peak is the most requests the engine had in progress at once.
func (w *wire) Peak() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.peak
}

// Answers is a copy of every answer so far.
func (w *wire) Answers() []answer {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := make([]answer, len(w.answers))
	for i, a := range w.answers {
		out[i] = *a
	}
	return out
}

type wireBody struct {
	io.ReadCloser
	w *wire
	a *answer
}

func (b *wireBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.w.mu.Lock()
	b.a.read += int64(n)
	b.w.mu.Unlock()
	return n, err
}

func (b *wireBody) Close() error {
	b.w.mu.Lock()
	if !b.a.closed {
		b.a.closed = true
		b.w.now--
	}
	b.w.mu.Unlock()
	return b.ReadCloser.Close()
}

// hostOf is a mirror URL's host:port.
func hostOf(u string) string {
	h, _, _ := strings.Cut(strings.TrimPrefix(u, "http://"), "/")
	return h
}

// TestFileMaxConnections: the metalink's limit for all mirrors together
// holds, seen from the client (requests in progress) and from the mirrors
// (responses in progress), while each mirror alone would take more; the
// file still completes and verifies. With an unknown size the mirrors are
// asked for it no more at once than the limit either.
func TestFileMaxConnections(t *testing.T) {
	t.Parallel()
	const pl = 64 << 10
	data := testkit.Data(3<<20 + 4321)
	tests := []struct {
		limit       int
		perMirror   int // Client.MaxConnsPerMirror: three mirrors alone would take 3× this
		unknownSize bool
	}{
		{1, 1, false},
		{1, 2, true},
		{2, 1, false},
		{2, 1, true},
		{3, 2, false},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("limit %d per mirror %d unknown size %v", tc.limit, tc.perMirror, tc.unknownSize), func(t *testing.T) {
			var g mirrortest.Gauge
			var ms []*mirrortest.Mirror
			for i := range 3 {
				ms = append(ms, mirrortest.New(t, data, addr(i), mirrortest.Rate(4<<20), mirrortest.Count(&g)))
			}
			f := fileFor("f.bin", data, pl, urls(ms...)...)
			f.MaxConnections = tc.limit
			if tc.unknownSize {
				f.Size = -1
			}
			w := newWire()
			dir := t.TempDir()
			c := &Client{HTTP: w.client(), MaxConnsPerMirror: tc.perMirror}
			snap, err := get(t, c, &Request{Dir: dir, File: f})
			if err != nil {
				t.Fatal(err)
			}
			wantFile(t, dir, "f.bin", data)
			if p := w.Peak(); p != tc.limit {
				t.Errorf("engine had up to %d requests in progress at once, want the limit %d reached and kept", p, tc.limit)
			}
			// A mirror sees an answer the engine abandoned midway (the far
			// part of its segment handed to another mirror) in progress
			// until it notices, so each such answer may add one.
			abandoned := 0
			for _, a := range w.Answers() {
				if a.method == http.MethodGet && a.read < a.length {
					abandoned++
				}
			}
			if p := g.Peak(); p > tc.limit+abandoned {
				t.Errorf("mirrors saw %d responses in progress at once, limit %d, %d answers abandoned", p, tc.limit, abandoned)
			}
			if tc.limit == 1 && abandoned > 0 {
				t.Errorf("%d answers abandoned with one connection: nothing should split a segment", abandoned)
			}
			t.Logf("filled %v; mirrors' peak %d, abandoned %d", filledBy(snap), g.Peak(), abandoned)
		})
	}
}

// TestMirrorBytesAfterSteal: when a fast mirror takes over the far part of
// a slow mirror's segment, each mirror's Bytes is what the engine read from
// it, Useful what the file kept, and the mirrors' own counts differ from
// Bytes only by what they sent in answers the engine closed before their
// end and never read.
func TestMirrorBytesAfterSteal(t *testing.T) {
	t.Parallel()
	const pl = 64 << 10
	data := testkit.Data(4<<20 + 99)
	slow := mirrortest.New(t, data, addr(0), mirrortest.Rate(512<<10))
	fast := mirrortest.New(t, data, addr(1), mirrortest.Rate(16<<20))
	ms := []*mirrortest.Mirror{slow, fast}
	w := newWire()
	dir := t.TempDir()
	f := fileFor("f.bin", data, pl, urls(ms...)...)
	snap, err := get(t, &Client{HTTP: w.client()}, &Request{Dir: dir, File: f})
	if err != nil {
		t.Fatal(err)
	}
	wantFile(t, dir, "f.bin", data)
	for _, m := range ms {
		m.Close() // waits for every handler: BytesServed and Ranges are final
	}

	// What the engine read from each mirror, per answer, from its side.
	read := map[string]int64{}
	type key struct {
		host string
		rng  string
	}
	readBy, complete := map[key]int64{}, map[key]bool{}
	abandoned := 0
	for _, a := range w.Answers() {
		read[a.host] += a.read
		if a.method != http.MethodGet {
			continue
		}
		k := key{a.host, a.rng}
		readBy[k] += a.read
		if _, seen := complete[k]; !seen {
			complete[k] = true
		}
		if a.read < a.length {
			complete[k] = false
			abandoned++
		}
	}
	if abandoned == 0 {
		t.Fatalf("no answer was closed before its end: the fast mirror never took over the slow one's segment (filled %v)", filledBy(snap))
	}

	var useful int64
	kept := map[string]int64{} // bytes of the done pieces each mirror filled
	plan := piece.PlanFor(f)
	for i, fi := range snap.Filler {
		if fi >= 0 && snap.Pieces[i] == PieceDone {
			_, n := plan.Bounds(i)
			kept[snap.Mirrors[fi].URL] += n
		}
	}
	for _, m := range ms {
		h := hostOf(m.URL())
		s := mirrorByURL(t, snap, m.URL())
		if s.Bytes != read[h] {
			t.Errorf("%s: snapshot Bytes %d, but the engine read %d from it", h, s.Bytes, read[h])
		}
		// Per answer as the mirror logged it: an answer the engine read to
		// its end was sent exactly as read; one it closed early was sent
		// at least as far as read, and no further than asked. What the
		// mirror sent beyond what the engine read was in flight when the
		// engine closed the answer, and is the whole difference.
		sent := map[key]int64{}
		for _, r := range m.Ranges() {
			if r.Method == http.MethodGet {
				sent[key{h, fmt.Sprintf("bytes=%d-%d", r.Off, r.Off+r.N-1)}] += r.Sent
			}
		}
		var inFlight int64
		for k, got := range readBy {
			if k.host != h {
				continue
			}
			switch {
			case complete[k] && sent[k] != got:
				t.Errorf("%s %s: read to the end (%d bytes) but the mirror sent %d", h, k.rng, got, sent[k])
			case !complete[k] && sent[k] < got:
				t.Errorf("%s %s: engine read %d bytes, more than the mirror sent (%d)", h, k.rng, got, sent[k])
			}
			inFlight += sent[k] - got
		}
		if served := m.BytesServed(); served != s.Bytes+inFlight {
			t.Errorf("%s: mirror served %d = Bytes %d + %d in flight, but the sum is %d", h, served, s.Bytes, inFlight, s.Bytes+inFlight)
		}
		if s.Useful != kept[s.URL] || s.Useful > s.Bytes {
			t.Errorf("%s: Useful %d, Bytes %d; it filled %d bytes of done pieces", h, s.Useful, s.Bytes, kept[s.URL])
		}
		useful += s.Useful
		t.Logf("%s: served %d, Bytes %d, Useful %d, in flight %d", h, m.BytesServed(), s.Bytes, s.Useful, inFlight)
	}
	if useful != int64(len(data)) {
		t.Errorf("Useful sums to %d over the mirrors, want the file's %d", useful, len(data))
	}
}

// TestReferer: every HTTP request to a mirror, probe and range alike,
// carries the origin URL as Referer (RFC 6249 §7), without credentials,
// query (signed-URL tokens) or fragment; without an origin none is sent.
func TestReferer(t *testing.T) {
	t.Parallel()
	data := testkit.Data(512 << 10)
	tests := []struct {
		name, referer, want string
	}{
		{"origin", "http://origin.test/pub/f.bin", "http://origin.test/pub/f.bin"},
		{"credentials, query and fragment dropped", "https://user:secret@origin.test/f.bin?token=abc&v=1#top", "https://origin.test/f.bin"},
		{"none", "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ms := []*mirrortest.Mirror{mirrortest.New(t, data, addr(0)), mirrortest.New(t, data, addr(1))}
			dir := t.TempDir()
			f := fileFor("f.bin", data, 64<<10, urls(ms...)...)
			if _, err := get(t, &Client{}, &Request{Dir: dir, File: f, Referer: tc.referer}); err != nil {
				t.Fatal(err)
			}
			wantFile(t, dir, "f.bin", data)
			n := 0
			for _, m := range ms {
				for _, r := range m.Ranges() {
					n++
					if r.Referer != tc.want {
						t.Errorf("%s %s bytes %d+%d: Referer %q, want %q", r.Method, m.URL(), r.Off, r.N, r.Referer, tc.want)
					}
				}
			}
			if n == 0 {
				t.Fatal("no request reached the mirrors")
			}
		})
	}
}

// TestFTPClosed: when a download ends, done or failed, its FTP sources have
// logged out of every control connection they kept for reuse.
func TestFTPClosed(t *testing.T) {
	t.Parallel()
	const pl = 64 << 10
	data := testkit.Data(2<<20 + 17)
	tests := []struct {
		name string
		file []byte // what the servers hold
		ok   bool
	}{
		{"done", data, true},
		{"every mirror has another size", data[:len(data)-1], false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srvs := []*ftptest.Server{ftptest.New(t, ftptest.File("pub/f.bin", tc.file)), ftptest.New(t, ftptest.File("pub/f.bin", tc.file))}
			f := fileFor("f.bin", data, pl, srvs[0].URL("pub/f.bin"), srvs[1].URL("pub/f.bin"))
			dir := t.TempDir()
			_, err := get(t, &Client{MaxConnsPerMirror: 2}, &Request{Dir: dir, File: f})
			if tc.ok != (err == nil) {
				t.Fatalf("err = %v, want success %v", err, tc.ok)
			}
			if tc.ok {
				wantFile(t, dir, "f.bin", data)
			}
			for _, s := range srvs {
				if s.Conns() == 0 {
					t.Fatalf("server %s was never asked", s.Addr())
				}
				// The server closes its side when it reads the QUIT or the
				// end of the connection, a moment after the engine is done.
				if !testkit.Eventually(10*time.Second, func() bool { return s.Open() == 0 }) {
					t.Errorf("server %s: %d control connections still open after the download ended", s.Addr(), s.Open())
				}
			}
		})
	}
}
