package engine

import (
	"bytes"
	"errors"
	"fmt"
	"hash"
	"io"
	"math"
	"sync"
	"time"

	"braid/engine/piece"
	"braid/engine/transport"
)

// readSize is the buffer of one connection: large reads keep the cost per
// byte (system calls, hashing calls) low.
const readSize = 256 << 10

var bufPool = sync.Pool{New: func() any { b := make([]byte, readSize); return &b }}

// diskError is a failure to write the file; it ends the download, since no
// mirror can help with it.
type diskError struct{ err error }

func (e *diskError) Error() string { return e.err.Error() }
func (e *diskError) Unwrap() error { return e.err }

// errDropped ends a connection whose mirror was dropped while it ran.
var errDropped = errors.New("mirror dropped")

// fetch runs one connection: it asks s's mirror for pieces [cur, end),
// writes the bytes into NAME.part as they arrive and hashes each piece
// incrementally on the way, so no piece is held in memory or read back.
// From a mirror that serves no ranges it asks for the whole file instead,
// discards the bytes before cur, and goes on past end to the next free
// pieces while the stream lasts.
func (d *download) fetch(s *segment) error {
	m := s.m
	if err := d.probe(s); err != nil {
		return err
	}
	d.mu.Lock()
	cur, end := s.cur, s.end
	stream := m.noRanges
	busy := stream && m.streaming
	checking := d.suspect != nil
	var kept int64 // bytes of piece cur written before (partial.go)
	if !stream && s.cur < s.end {
		kept = d.takePartial(s.cur)
	}
	if stream && !busy && cur < end {
		m.streaming = true
		defer func() {
			d.mu.Lock()
			m.streaming = false
			d.mu.Unlock()
		}()
	}
	d.mu.Unlock()
	if cur >= end || busy {
		// Stolen from before it began, or its pieces are better left to
		// the stream already running from this range-less mirror.
		return nil
	}
	pieceOff, pieceLen := d.plan.Bounds(cur)
	lastOff, lastN := d.plan.Bounds(end - 1)
	pos, want := pieceOff+kept, lastOff+lastN-pieceOff-kept // pos: offset of the next byte read
	if stream {
		// The transport accepts a 200 with the whole file for a request
		// from offset 0, and only for that.
		pos, want = 0, d.size
		s.skip.Store(pieceOff)
	}
	asked := time.Now()
	rc, err := m.src.ReadRange(s.ctx, pos, want)
	if err != nil {
		return err
	}
	defer rc.Close()

	bp := bufPool.Get().(*[]byte)
	defer bufPool.Put(bp)
	buf := (*bp)[:readSize]

	var h hash.Hash
	if d.plan.Verifiable() {
		h, _ = piece.NewHash(d.plan.Type)
	}
	sum := make([]byte, 0, 64)
	var scratch []byte
	if checking {
		scratch = make([]byte, len(buf))
	}
	written := kept
	s.partial.Store(written)
	for {
		// Each read is cut to the limits in force now (see readChunk),
		// so a limit set while the connection runs holds it in small
		// steps.
		n, rerr := rc.Read(buf[:d.readChunk(readSize)])
		if n > 0 {
			now := time.Now()
			if s.got.Load() == 0 {
				m.ttfb.Store(int64(now.Sub(asked)))
			}
			d.lastByte.Store(now.UnixNano())
			m.bytes.Add(int64(n))
			s.got.Add(int64(n))
			// Time held back by a rate limit is not the mirror's stall:
			// the connection counts as busy until its bytes are paid for.
			s.last.Store(math.MaxInt64)
			if err := d.pay(s.ctx, n); err != nil {
				return err
			}
			s.last.Store(time.Now().UnixNano())
			p := buf[:n]
			for len(p) > 0 {
				if pos < pieceOff {
					// A stream passing bytes that are not this
					// connection's to write.
					k := min(int64(len(p)), pieceOff-pos)
					pos += k
					s.skip.Store(pieceOff - pos)
					p = p[k:]
					continue
				}
				k := min(int64(len(p)), pieceLen-written)
				if checking {
					d.compareOld(p[:k], pieceOff+written, scratch)
				}
				if _, err := d.st.WriteAt(p[:k], pieceOff+written); err != nil {
					return &diskError{fmt.Errorf("write piece %d: %w", cur, err)}
				}
				if h != nil {
					h.Write(p[:k])
				}
				written += k
				pos += k
				s.partial.Store(written)
				p = p[k:]
				if written < pieceLen {
					continue
				}
				good := h == nil || bytes.Equal(h.Sum(sum[:0]), d.plan.Hashes[cur])
				d.mu.Lock()
				more := d.finishPiece(s, good)
				dropped := m.state == MirrorDropped
				if !more && stream && !dropped {
					more = d.extend(s)
				}
				cur = s.cur
				d.mu.Unlock()
				if dropped {
					return errDropped
				}
				if !more {
					return nil
				}
				if h != nil {
					h.Reset()
				}
				written = 0
				pieceOff, pieceLen = d.plan.Bounds(cur)
				if pos < pieceOff {
					s.skip.Store(pieceOff - pos)
				}
			}
		}
		if rerr == io.EOF {
			return fmt.Errorf("piece %d: %w", cur, io.ErrUnexpectedEOF)
		}
		if rerr != nil {
			return rerr
		}
	}
}

// probe asks a mirror about the file before its first range, when its
// source can tell, so that a mirror with another size, digest or ETag is
// dropped before it sends a byte.
func (d *download) probe(s *segment) error {
	m := s.m
	d.mu.Lock()
	probed := m.probed
	d.mu.Unlock()
	st, ok := m.src.(transport.Stater)
	if probed || !ok {
		return nil
	}
	info, err := st.Stat(s.ctx)
	if err != nil {
		return err
	}
	if err := d.agrees(m, info); err != nil {
		return err
	}
	d.mu.Lock()
	m.probed = true
	if !info.Ranges {
		// Asking it for a range would only waste a request: fetch
		// streams from the start of the file.
		m.markNoRanges()
	}
	d.mu.Unlock()
	return nil
}

// agrees checks what a mirror says about the file against what is known.
func (d *download) agrees(m *mirror, info transport.Info) error {
	if info.Size >= 0 && info.Size != d.size {
		return fmt.Errorf("%w: size %d, expected %d", transport.ErrMismatch, info.Size, d.size)
	}
	for _, got := range info.Digests {
		for _, want := range d.file.Hashes {
			if got.Type == want.Type && got.Value != want.Value {
				return fmt.Errorf("%w: %s digest %s, expected %s", transport.ErrMismatch, got.Type, got.Value, want.Value)
			}
		}
	}
	if m.url.Pref && d.req.OriginETag != "" && info.ETag != "" && info.ETag != d.req.OriginETag {
		return fmt.Errorf("%w: ETag %s, expected %s", transport.ErrMismatch, info.ETag, d.req.OriginETag)
	}
	return nil
}
