// Package mirrortest is the HTTP mirror kit every engine test uses: a real
// httptest server on loopback serving one file with real range semantics
// (single ranges, suffix ranges, If-Range, If-Match, 416), shaped by option
// functions into the mirrors a download manager meets in the wild: slow,
// rangeless, lying about the size, stalling, corrupting, refusing, full.
//
// Every Mirror counts what it served, so a test can assert which mirror
// served which piece.
package mirrortest

import (
	"bytes"
	"fmt"
	"mime"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Range is one request as the mirror served it.
type Range struct {
	Method string // GET or HEAD
	// Off and N are the bytes of the file the answer covered: for a 206 the
	// Content-Range, for a 200 GET the whole (possibly wrong-sized) body; N
	// is 0 for a HEAD or an error status.
	Off, N  int64
	Status  int    // status code sent
	Sent    int64  // body bytes actually written so far
	Remote  string // client address (ip:port): one per connection
	User    string // basic-auth user name sent, "" when none
	Referer string // the Referer header sent, "" when none
	Done    bool   // the handler has returned
}

// Mirror is a running test mirror. Its methods are safe for concurrent use.
// It is closed by t.Cleanup; Close takes it down earlier.
type Mirror struct {
	t    testing.TB
	cfg  config
	data []byte // the bytes served (after WrongSize)
	srv  *httptest.Server
	quit chan struct{} // closed by Close: unblocks stalls and throttles

	bucket *bucket // nil: unthrottled
	// inFlight counts this mirror's responses in progress; the config's
	// gauges count them across mirrors.
	inFlight Gauge

	served   atomic.Int64
	requests atomic.Int64
	active   atomic.Int64
	conns    atomic.Int64

	mu     sync.Mutex
	ranges []Range

	closeOnce sync.Once
	gate      *gate
	cutDone   atomic.Bool // CutFirst has cut its answer
}

type config struct {
	addr       string
	rate       int64
	noRanges   bool
	wrongSize  int64 // -1: off
	stallAfter int64 // -1: off
	cutAfter   int64 // -1: off
	pieceLen   int64
	corrupt    func(piece int) bool
	down       bool
	maxConns   int
	retryAfter string
	header     http.Header
	path       string
	name       string
	status     int
	redirect   string
	noHead     bool
	user, pass string
	gauges     []*Gauge
	chunked    bool
	cutFirst   int64 // -1: off
}

// Option shapes a Mirror.
type Option func(*config)

// Addr makes the mirror listen on its own loopback address (port 0), such
// as "127.0.0.2", so tests about per-host limits see distinct hosts. Linux
// routes all of 127.0.0.0/8 to the loopback interface.
func Addr(ip string) Option { return func(c *config) { c.addr = ip } }

// Rate throttles the mirror to bytesPerSec, shared across all its
// connections like a real uplink. Bytes leave in small, evenly spaced
// chunks (about 10 ms worth each). A sender whose timer fired late may
// make up for at most catchUp of lost time, so the rate holds at tens of
// MB/s; idle time beyond that earns no burst.
func Rate(bytesPerSec int64) Option { return func(c *config) { c.rate = bytesPerSec } }

// NoRanges makes the mirror ignore Range and If-Range: every GET is a 200
// with the whole body and no Accept-Ranges header.
func NoRanges() Option { return func(c *config) { c.noRanges = true } }

// WrongSize makes the mirror serve a file of n bytes instead of the data
// given: the data cut short, or padded with a repeating pattern. Its
// Content-Length and Content-Range report n, as a mirror with a stale or
// different file would.
func WrongSize(n int64) Option { return func(c *config) { c.wrongSize = n } }

// StallAfter makes every response stop after sending n body bytes (headers
// are flushed, so the client sees the answer begin) and hold the connection
// open until the client goes away or the mirror closes.
func StallAfter(n int64) Option { return func(c *config) { c.stallAfter = n } }

// CutAfter makes every response send n body bytes and then drop the
// connection, as a mirror that crashes mid-transfer: the client sees the
// body end before its Content-Length.
func CutAfter(n int64) Option { return func(c *config) { c.cutAfter = n } }

// Corrupt flips the first byte of each piece (pieces of pieceLen bytes) for
// which bad returns true, as that byte is sent. bad is called each time a
// response sends a piece's first byte, possibly from several goroutines at
// once, so it can decide per response (e.g. "only the first time").
func Corrupt(pieceLen int64, bad func(piece int) bool) Option {
	return func(c *config) { c.pieceLen, c.corrupt = pieceLen, bad }
}

// Down makes the mirror refuse connections: its URL points at a closed port.
func Down() Option { return func(c *config) { c.down = true } }

// MaxConns makes the mirror answer 503 with Retry-After (see RetryAfter,
// default "1") to a request that arrives while n are already in progress.
func MaxConns(n int) Option { return func(c *config) { c.maxConns = n } }

// RetryAfter sets the Retry-After value sent with MaxConns' 503 answers
// and with Status 429/503: seconds or an HTTP date, as written.
func RetryAfter(v string) Option { return func(c *config) { c.retryAfter = v } }

// Header adds a response header to every answer (Link, Digest, ETag,
// Content-Type, ...). Repeat it to send several values of one header. An
// ETag set here is honoured by If-Match, If-None-Match and If-Range.
func Header(key, value string) Option {
	return func(c *config) { c.header.Add(key, value) }
}

// Path sets the URL path the file is served at, unescaped (default
// "/data.bin"); every other path is a 404.
func Path(p string) Option {
	return func(c *config) {
		if !strings.HasPrefix(p, "/") {
			p = "/" + p
		}
		c.path = p
	}
}

// Name sends Content-Disposition: attachment with this file name, encoded
// as a server would (RFC 2231 for non-ASCII). Use Header for raw values.
func Name(name string) Option { return func(c *config) { c.name = name } }

// Status makes the mirror answer every request for the file with this
// status code and no body (404, 410, 429, 500, 503, ...). 429 and 503
// carry Retry-After when RetryAfter is set.
func Status(code int) Option { return func(c *config) { c.status = code } }

// Redirect makes the mirror answer every request for the file with a 302
// to target.
func Redirect(target string) Option { return func(c *config) { c.redirect = target } }

// NoHead makes the mirror answer HEAD with 405 Method Not Allowed.
// Chunked makes the mirror send the whole file without a Content-Length
// (Transfer-Encoding: chunked, as a file generated on the fly is sent), to
// HEAD as to GET. Range requests are still served as usual unless NoRanges
// is set too.
// CutFirst makes the mirror drop the connection of its first GET of the
// file after n body bytes, as a network that fails once does; later
// answers are whole.
func CutFirst(n int64) Option { return func(c *config) { c.cutFirst = n } }

func Chunked() Option { return func(c *config) { c.chunked = true } }

func NoHead() Option { return func(c *config) { c.noHead = true } }

// BasicAuth makes the mirror require these credentials, answering 401
// without them.
func BasicAuth(user, pass string) Option {
	return func(c *config) { c.user, c.pass = user, pass }
}

// Count makes the mirror count its responses in progress in g as well,
// so that one Gauge given to several mirrors sees the requests in progress
// across all of them (see Gauge for what "in progress" means).
func Count(g *Gauge) Option { return func(c *config) { c.gauges = append(c.gauges, g) } }

// Gauge counts responses in progress and remembers the most at once. A
// response is in progress from the moment its request is read until its
// last body byte is handed to the connection, or its handler returns,
// whichever comes first: it is let go before the client can see the end
// of the response, so a client that waits for one response to end before
// it sends the next request is never seen with two in progress. A
// response the client abandons midway stays in progress until the server
// notices (its next write fails, or its stall or throttle sees the
// request's context end). The zero Gauge is ready; it is safe for
// concurrent use.
type Gauge struct {
	mu        sync.Mutex
	now, peak int
}

func (g *Gauge) add(n int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.now += n
	g.peak = max(g.peak, g.now)
}

// Now is the number of responses in progress now.
func (g *Gauge) Now() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.now
}

// Peak is the most responses that were in progress at once.
func (g *Gauge) Peak() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.peak
}

// New starts a mirror serving data and registers its Close with t.Cleanup.
// data is not modified.
func New(t testing.TB, data []byte, opts ...Option) *Mirror {
	t.Helper()
	cfg := config{
		addr:       "127.0.0.1",
		wrongSize:  -1,
		stallAfter: -1,
		cutAfter:   -1,
		cutFirst:   -1,
		header:     http.Header{},
		path:       "/data.bin",
		retryAfter: "1",
	}
	for _, o := range opts {
		o(&cfg)
	}
	m := &Mirror{t: t, cfg: cfg, data: resize(data, cfg.wrongSize), quit: make(chan struct{})}
	if cfg.rate > 0 {
		m.bucket = newBucket(cfg.rate)
	}
	inner, err := net.Listen("tcp", net.JoinHostPort(cfg.addr, "0"))
	if err != nil {
		t.Fatalf("mirrortest: listen on %s: %v", cfg.addr, err)
	}
	ln := newGate(inner)
	m.gate = ln
	m.srv = httptest.NewUnstartedServer(http.HandlerFunc(m.serve))
	m.srv.Listener.Close()
	m.srv.Listener = ln
	m.srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			m.conns.Add(1)
		}
	}
	m.srv.Start()
	t.Cleanup(m.Close)
	if cfg.down {
		m.Close()
	}
	return m
}

// resize returns data cut or padded to n bytes (n < 0: data itself).
func resize(data []byte, n int64) []byte {
	if n < 0 || n == int64(len(data)) {
		return data
	}
	if n < int64(len(data)) {
		return data[:n]
	}
	out := make([]byte, n)
	copy(out, data)
	for i := len(data); i < len(out); i++ {
		out[i] = byte(i*7 + 3)
	}
	return out
}

// URL is the file's full URL, its path escaped.
func (m *Mirror) URL() string { return m.srv.URL + (&url.URL{Path: m.cfg.path}).EscapedPath() }

// Host is the mirror's host:port.
func (m *Mirror) Host() string { return m.srv.Listener.Addr().String() }

// BytesServed is the number of body bytes written to clients so far. A
// byte is counted before the client can read it.
func (m *Mirror) BytesServed() int64 { return m.served.Load() }

// Requests is the number of requests received so far, of any kind.
func (m *Mirror) Requests() int { return int(m.requests.Load()) }

// Conns is the number of TCP connections accepted so far; with keep-alive
// it stays below Requests.
func (m *Mirror) Conns() int { return int(m.conns.Load()) }

// InFlight is the Gauge of this mirror's own responses in progress (see
// Gauge for what counts).
func (m *Mirror) InFlight() *Gauge { return &m.inFlight }

// Ranges is a copy of the log of requests for the file, in arrival order.
func (m *Mirror) Ranges() []Range {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]Range(nil), m.ranges...)
}

// Close takes the mirror down: stalled and throttled responses end, open
// connections are cut, and later connections are refused. It is safe to
// call more than once.
func (m *Mirror) Close() {
	m.closeOnce.Do(func() {
		m.gate.shut()
		close(m.quit)
		m.srv.CloseClientConnections()
		m.srv.Close()
	})
}

// Pause takes the mirror off the network, as an outage does: its listener
// closes, so connections are refused, and every open connection is cut.
// Resume brings it back on the same address.
func (m *Mirror) Pause() {
	m.gate.pause()
	m.srv.CloseClientConnections()
}

// Resume ends a Pause: the mirror listens again on its address.
func (m *Mirror) Resume() {
	if err := m.gate.resume(); err != nil {
		m.t.Errorf("mirrortest: listen again on %s: %v", m.Host(), err)
	}
}

func (m *Mirror) serve(w http.ResponseWriter, r *http.Request) {
	m.requests.Add(1)
	if r.URL.Path != m.cfg.path {
		http.NotFound(w, r)
		return
	}
	user, _, _ := r.BasicAuth()
	idx := m.logStart(Range{Method: r.Method, Remote: r.RemoteAddr, User: user, Referer: r.Referer()})
	rw := &writer{ResponseWriter: w, m: m, r: r, idx: idx, length: -1, cut: m.cfg.cutAfter}
	if m.cfg.cutFirst >= 0 && r.Method == http.MethodGet && m.cutDone.CompareAndSwap(false, true) {
		rw.cut = m.cfg.cutFirst
	}
	m.track(1)
	defer rw.finish() // unless the last body byte let go already
	defer m.logDone(idx)

	if n := m.active.Add(1); m.cfg.maxConns > 0 && n > int64(m.cfg.maxConns) {
		m.active.Add(-1)
		rw.Header().Set("Retry-After", m.cfg.retryAfter)
		rw.WriteHeader(http.StatusServiceUnavailable)
		return
	}
	defer m.active.Add(-1)

	for k, vs := range m.cfg.header {
		for _, v := range vs {
			rw.Header().Add(k, v)
		}
	}
	if m.cfg.user != "" || m.cfg.pass != "" {
		if u, p, ok := r.BasicAuth(); !ok || u != m.cfg.user || p != m.cfg.pass {
			rw.Header().Set("WWW-Authenticate", `Basic realm="mirrortest"`)
			rw.WriteHeader(http.StatusUnauthorized)
			return
		}
	}
	if m.cfg.redirect != "" {
		http.Redirect(rw, r, m.cfg.redirect, http.StatusFound)
		return
	}
	if m.cfg.status != 0 {
		if m.cfg.status == http.StatusTooManyRequests || m.cfg.status == http.StatusServiceUnavailable {
			rw.Header().Set("Retry-After", m.cfg.retryAfter)
		}
		rw.WriteHeader(m.cfg.status)
		return
	}
	if r.Method == http.MethodHead && m.cfg.noHead {
		rw.Header().Set("Allow", "GET")
		rw.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	if m.cfg.name != "" {
		cd := mime.FormatMediaType("attachment", map[string]string{"filename": m.cfg.name})
		if cd == "" {
			cd = `attachment; filename="` + m.cfg.name + `"`
		}
		rw.Header().Set("Content-Disposition", cd)
	}
	if rw.Header().Get("Content-Type") == "" {
		rw.Header().Set("Content-Type", "application/octet-stream")
	}
	if m.cfg.noRanges {
		r.Header.Del("Range")
		r.Header.Del("If-Range")
	}
	if m.cfg.chunked && r.Header.Get("Range") == "" {
		m.serveChunked(rw, r)
		return
	}
	http.ServeContent(rw, r, "", time.Time{}, bytes.NewReader(m.data))
}

// serveChunked sends the whole file without saying its length.
func (m *Mirror) serveChunked(rw *writer, r *http.Request) {
	rw.WriteHeader(http.StatusOK)
	if r.Method == http.MethodHead {
		return
	}
	for off := 0; off < len(m.data); off += 32 << 10 {
		if _, err := rw.Write(m.data[off:min(off+32<<10, len(m.data))]); err != nil {
			return
		}
		rw.Flush() // each write its own chunk, never a whole buffered body
	}
}

// track adds n to the mirror's gauges.
func (m *Mirror) track(n int) {
	m.inFlight.add(n)
	for _, g := range m.cfg.gauges {
		g.add(n)
	}
}

func (m *Mirror) logStart(rg Range) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.ranges = append(m.ranges, rg)
	return len(m.ranges) - 1
}

func (m *Mirror) logHeader(idx, status int, h http.Header, method string) {
	var off, n int64
	switch {
	case method == http.MethodHead:
	case status == http.StatusPartialContent:
		off, n = parseContentRange(h.Get("Content-Range"))
	case status == http.StatusOK:
		n = int64(len(m.data))
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.ranges[idx].Status, m.ranges[idx].Off, m.ranges[idx].N = status, off, n
}

func (m *Mirror) logSent(idx int, n int64) {
	m.served.Add(n)
	m.mu.Lock()
	defer m.mu.Unlock()
	m.ranges[idx].Sent += n
}

func (m *Mirror) logDone(idx int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.ranges[idx].Done = true
}

// parseContentRange reads "bytes a-b/size" into offset and length.
func parseContentRange(v string) (off, n int64) {
	v, ok := strings.CutPrefix(v, "bytes ")
	if !ok {
		return 0, 0
	}
	span, _, _ := strings.Cut(v, "/")
	a, b, ok := strings.Cut(span, "-")
	if !ok {
		return 0, 0
	}
	first, err1 := strconv.ParseInt(a, 10, 64)
	last, err2 := strconv.ParseInt(b, 10, 64)
	if err1 != nil || err2 != nil || last < first {
		return 0, 0
	}
	return first, last - first + 1
}

// writer applies the mirror's misbehaviour to one response's body: it
// throttles, corrupts, stalls and counts, in that order, chunk by chunk.
type writer struct {
	http.ResponseWriter
	m      *Mirror
	r      *http.Request
	idx    int
	cut    int64 // body bytes after which to drop the connection; -1: never
	status int
	pos    int64 // file offset of the next body byte
	sent   int64 // body bytes sent in this response
	length int64 // Content-Length sent, -1 when none
	ended  bool  // the response let go of the mirror's gauges
}

// finish lets go of the mirror's gauges, once.
func (w *writer) finish() {
	if !w.ended {
		w.ended = true
		w.m.track(-1)
	}
}

func (w *writer) WriteHeader(code int) {
	if w.status != 0 {
		return
	}
	w.status = code
	if w.m.cfg.noRanges {
		w.Header().Del("Accept-Ranges")
	}
	if code == http.StatusPartialContent {
		w.pos, _ = parseContentRange(w.Header().Get("Content-Range"))
	}
	if n, err := strconv.ParseInt(w.Header().Get("Content-Length"), 10, 64); err == nil && w.r.Method != http.MethodHead {
		w.length = n
	}
	w.m.logHeader(w.idx, code, w.Header(), w.r.Method)
	w.ResponseWriter.WriteHeader(code)
}

func (w *writer) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.WriteHeader(http.StatusOK)
	}
	written := 0
	for len(p) > 0 {
		chunk := p
		if w.m.bucket != nil && len(chunk) > w.m.bucket.chunk {
			chunk = chunk[:w.m.bucket.chunk]
		}
		if c := w.cut; c >= 0 {
			if w.sent >= c {
				w.Flush()
				panic(http.ErrAbortHandler) // net/http drops the connection quietly
			}
			if left := c - w.sent; int64(len(chunk)) > left {
				chunk = chunk[:left]
			}
		}
		if s := w.m.cfg.stallAfter; s >= 0 {
			if w.sent >= s {
				return written, w.stall()
			}
			if left := s - w.sent; int64(len(chunk)) > left {
				chunk = chunk[:left]
			}
		}
		if w.m.bucket != nil {
			if err := w.m.bucket.wait(w.r.Context().Done(), w.m.quit, len(chunk)); err != nil {
				return written, err
			}
		}
		out := w.corrupt(chunk)
		if w.length >= 0 && w.sent+int64(len(out)) >= w.length {
			// The client cannot see the end of the response before this.
			w.finish()
		}
		// Count before writing so a client never sees a byte the counters
		// do not yet include; take back what the write failed to send.
		w.m.logSent(w.idx, int64(len(out)))
		n, err := w.ResponseWriter.Write(out)
		w.m.logSent(w.idx, int64(n-len(out)))
		w.sent += int64(n)
		w.pos += int64(n)
		written += n
		if err != nil {
			return written, err
		}
		if w.m.bucket != nil {
			w.Flush() // a throttled chunk leaves now, not when a buffer fills
		}
		p = p[len(chunk):]
	}
	return written, nil
}

// corrupt returns chunk, or a copy with the first byte of each bad piece in
// it flipped (io.Writer must not modify the caller's slice).
func (w *writer) corrupt(chunk []byte) []byte {
	pl := w.m.cfg.pieceLen
	if w.m.cfg.corrupt == nil || pl <= 0 {
		return chunk
	}
	var out []byte
	first := (w.pos + pl - 1) / pl * pl // first piece start at or after pos
	for at := first; at < w.pos+int64(len(chunk)); at += pl {
		if !w.m.cfg.corrupt(int(at / pl)) {
			continue
		}
		if out == nil {
			out = append([]byte(nil), chunk...)
		}
		out[at-w.pos] ^= 0xff
	}
	if out == nil {
		return chunk
	}
	return out
}

// stall flushes what was sent and holds the response open until the client
// goes away or the mirror closes.
func (w *writer) stall() error {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
	select {
	case <-w.r.Context().Done():
		return w.r.Context().Err()
	case <-w.m.quit:
		return errClosed
	}
}

// Flush lets ServeContent's callers and the stall flush headers.
func (w *writer) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

var errClosed = fmt.Errorf("mirrortest: mirror closed")

// catchUp is the most time a late sender may make up for. Without it every
// late timer wakeup would be lost for good, and at tens of MB/s (a chunk
// every millisecond or two) the rate would fall far short, as it did at
// 25 MB/s for 40; bench/mirror allows the same.
const catchUp = 20 * time.Millisecond

// bucket is a token bucket with a burst of at most catchUp: each chunk
// reserves its time slot on one clock shared by all connections of the
// mirror, and waits for the end of its slot before it is written.
type bucket struct {
	rate  float64 // bytes per second
	chunk int     // bytes per slot: about 10 ms worth
	mu    sync.Mutex
	next  time.Time // end of the last reserved slot
}

func newBucket(rate int64) *bucket {
	chunk := int(rate / 100)
	chunk = max(chunk, 256)
	chunk = min(chunk, 64<<10)
	return &bucket{rate: float64(rate), chunk: chunk}
}

func (b *bucket) wait(ctxDone, quit <-chan struct{}, n int) error {
	b.mu.Lock()
	now := time.Now()
	if floor := now.Add(-catchUp); b.next.Before(floor) {
		b.next = floor // idle time earns no more than catchUp
	}
	b.next = b.next.Add(time.Duration(float64(n) / b.rate * float64(time.Second)))
	until := b.next
	b.mu.Unlock()
	d := time.Until(until)
	if d <= 0 {
		return nil
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return nil
	case <-ctxDone:
		return fmt.Errorf("mirrortest: client went away")
	case <-quit:
		return errClosed
	}
}
