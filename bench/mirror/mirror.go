// Package mirror is the bench suite's HTTP mirror: a Server of its own on
// a loopback address, serving a generated file of any size that is never
// held in memory, at a fixed rate shared by its connections, and
// optionally misbehaving (stalling, corrupting pieces). Unlike the test kit
// engine/mirrortest it is built for throughput: its rate holds at tens of
// MB/s, and its data costs a copy per byte.
package mirror

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Content is a file of any size that is never held in memory: byte off is
// pattern[off % len(pattern)], and the pattern's length is not a multiple
// of any piece length, so no two pieces are alike.
type Content struct {
	Size    int64
	pattern []byte
	base    int64 // offset of byte 0 in the pattern's endless repetition (Window)
}

// NewContent returns generated content of size bytes.
func NewContent(size int64) *Content {
	r := rand.New(rand.NewPCG(1, 2))
	p := make([]byte, 4<<20+4093)
	for i := range p {
		p[i] = byte(r.Uint32())
	}
	return &Content{Size: size, pattern: p}
}

// fill writes the bytes at off into p.
func (c *Content) Fill(p []byte, off int64) {
	for len(p) > 0 {
		i := (c.base + off) % int64(len(c.pattern))
		n := copy(p, c.pattern[i:])
		p = p[n:]
		off += int64(n)
	}
}

// Behaviour is how a bench mirror serves.
type Behaviour struct {
	Rate       int64 // bytes per second for the whole mirror; 0 unlimited
	StallAfter int64 // each response stops after this many bytes; 0 never
	CorruptLen int64 // with CorruptEvery: the piece length
	// CorruptEvery > 0 flips a byte in every piece i with
	// i%CorruptEvery == CorruptEvery-1.
	CorruptEvery int
	// NoRanges ignores Range headers: every GET is answered with the
	// whole file, as some servers of generated content do.
	NoRanges bool
}

// Server is one bench mirror on its own loopback address.
type Server struct {
	c      *Content
	files  map[string]*Content // more files, by URL path (StartFiles)
	b      Behaviour
	srv    *http.Server
	ln     net.Listener
	url    string
	served atomic.Int64 // body bytes written
	quit   chan struct{}
	pace   *pacer
}

// Start serves c at addr (a loopback address; the port is chosen) as
// /file.bin until Close.
func Start(c *Content, addr string, b Behaviour) (*Server, error) {
	ln, err := net.Listen("tcp", net.JoinHostPort(addr, "0"))
	if err != nil {
		return nil, err
	}
	s := &Server{c: c, b: b, ln: ln, quit: make(chan struct{})}
	s.pace = &pacer{rate: b.Rate, quit: s.quit}
	s.url = "http://" + ln.Addr().String() + "/file.bin"
	s.srv = &http.Server{Handler: http.HandlerFunc(s.serve)}
	go s.srv.Serve(ln)
	return s, nil
}

// URL is the file's URL.
func (s *Server) URL() string { return s.url }

// Served is the number of body bytes sent so far.
func (s *Server) Served() int64 { return s.served.Load() }

// Close stops the server and ends its responses.
func (s *Server) Close() {
	close(s.quit)
	s.srv.Close()
}

// serve answers HEAD and GET with single byte ranges, which is all a
// download manager asks for.
func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	c := s.c
	if r.URL.Path != "/file.bin" {
		if c = s.files[r.URL.Path]; c == nil {
			http.NotFound(w, r)
			return
		}
	}
	size := c.Size
	off, end := int64(0), size
	status := http.StatusOK
	if rg := r.Header.Get("Range"); rg != "" && !s.b.NoRanges {
		a, b, ok := parseRange(rg, size)
		if !ok {
			w.Header().Set("Content-Range", fmt.Sprintf("bytes */%d", size))
			w.WriteHeader(http.StatusRequestedRangeNotSatisfiable)
			return
		}
		off, end, status = a, b, http.StatusPartialContent
		w.Header().Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", a, b-1, size))
	}
	h := w.Header()
	if !s.b.NoRanges {
		h.Set("Accept-Ranges", "bytes")
	}
	h.Set("Content-Type", "application/octet-stream")
	h.Set("Content-Length", strconv.FormatInt(end-off, 10))
	w.WriteHeader(status)
	if r.Method == http.MethodHead {
		return
	}
	chunk := 256 << 10
	if s.b.Rate > 0 {
		chunk = int(min(max(s.b.Rate/100, 4<<10), 64<<10))
	}
	buf := make([]byte, chunk)
	sent := int64(0)
	for off < end {
		n := min(int64(len(buf)), end-off)
		if s.b.StallAfter > 0 {
			if sent >= s.b.StallAfter {
				select {
				case <-r.Context().Done():
				case <-s.quit:
				}
				return
			}
			n = min(n, s.b.StallAfter-sent)
		}
		p := buf[:n]
		c.Fill(p, off)
		s.corrupt(p, off)
		if err := s.pace.wait(r.Context(), len(p)); err != nil {
			return
		}
		if _, err := w.Write(p); err != nil {
			return
		}
		s.served.Add(n)
		off += n
		sent += n
	}
}

// corrupt flips the first byte of every bad piece that starts in p.
func (s *Server) corrupt(p []byte, off int64) {
	pl, every := s.b.CorruptLen, int64(s.b.CorruptEvery)
	if every <= 0 || pl <= 0 {
		return
	}
	for at := (off + pl - 1) / pl * pl; at < off+int64(len(p)); at += pl {
		if (at/pl)%every == every-1 {
			p[at-off] ^= 0xff
		}
	}
}

// catchUp is the most time a late sender may make up for.
const catchUp = 20 * time.Millisecond

// pacer holds a mirror's bytes to its rate, on one clock shared by all its
// connections like a real uplink.
type pacer struct {
	rate int64 // bytes per second; 0: unlimited
	quit chan struct{}
	mu   sync.Mutex
	next time.Time // end of the last reserved send slot
}

// wait holds n bytes back until their slot.
func (s *pacer) wait(ctx context.Context, n int) error {
	if s.rate <= 0 {
		return nil
	}
	s.mu.Lock()
	now := time.Now()
	// A sender that woke late may catch up on up to catchUp of lost time,
	// so timer latency does not eat into the rate; idle time beyond that
	// earns nothing.
	if floor := now.Add(-catchUp); s.next.Before(floor) {
		s.next = floor
	}
	s.next = s.next.Add(time.Duration(float64(n) / float64(s.rate) * float64(time.Second)))
	until := s.next
	s.mu.Unlock()
	d := time.Until(until)
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-s.quit:
		return errors.New("closed")
	}
}

// parseRange reads "bytes=a-b", "bytes=a-" or "bytes=-n" into [off, end).
func parseRange(v string, size int64) (off, end int64, ok bool) {
	spec, found := strings.CutPrefix(v, "bytes=")
	if !found || strings.Contains(spec, ",") {
		return 0, 0, false
	}
	a, b, found := strings.Cut(spec, "-")
	if !found {
		return 0, 0, false
	}
	if a == "" {
		n, err := strconv.ParseInt(b, 10, 64)
		if err != nil || n <= 0 {
			return 0, 0, false
		}
		return max(size-n, 0), size, true
	}
	first, err := strconv.ParseInt(a, 10, 64)
	if err != nil || first >= size {
		return 0, 0, false
	}
	last := size - 1
	if b != "" {
		if last, err = strconv.ParseInt(b, 10, 64); err != nil || last < first {
			return 0, 0, false
		}
		last = min(last, size-1)
	}
	return first, last + 1, true
}
