package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"time"

	"braid/engine/piece"
	"braid/engine/transport"
)

// A file whose size nobody tells (a body sent chunked, as archives made on
// the fly are) cannot be split into ranges: it is streamed on one
// connection into NAME.part, hashed on the way, and checked against
// whatever hash is known (the metalink's, or a Digest the server sends).
// An interrupted stream resumes with a Range from the bytes on disk when
// the server serves ranges, and starts over when it does not.

// streamMagic marks NAME.part.done as the log of a stream: NAME.part then
// holds the stream's first bytes, as many as its length, and may resume.
var streamMagic = []byte("braid stream\n")

// errStalled ends a stream that sent nothing for the stall timeout.
var errStalled = errors.New("stalled: no data for too long")

// sizeLearned ends a stream before its first byte: a mirror tells the
// size and serves ranges after all (none answered when the download began:
// the network was down, or the server not up yet). The file is then
// fetched in pieces, from every mirror, as if its size had been known.
type sizeLearned struct{ size int64 }

func (e sizeLearned) Error() string { return fmt.Sprintf("a mirror says the size: %d bytes", e.size) }

// streamUnknown fetches a file of unknown size to its end, verifies it and
// gives it its final name. It returns a sizeLearned, with nothing of the
// stream left on disk, when a mirror tells the size before the first byte.
func (d *download) streamUnknown(ctx context.Context) error {
	have, err := d.openStream()
	if err != nil {
		return err
	}
	defer d.closePieceLog()
	var h hash.Hash
	if d.whole.Type != "" {
		if h, err = d.hashStreamed(have); err != nil {
			return err
		}
	}
	d.mu.Lock()
	d.state = StateDownloading
	d.doneB = have
	d.mu.Unlock()
	for {
		now := time.Now()
		d.mu.Lock()
		m := d.streamMirror(now)
		var next time.Time
		if m == nil {
			next = d.nextTry(now)
			if !next.IsZero() {
				d.startWaiting(now)
				if err := d.checkWaiting(now); err != nil {
					d.mu.Unlock()
					return err
				}
			}
		}
		live := d.live()
		d.mu.Unlock()
		if m == nil {
			if next.IsZero() {
				if live == 0 {
					return noMirrorsError(d.lost)
				}
				return fmt.Errorf("%w, and no mirror can stream it", ErrUnknownSize)
			}
			t := time.NewTimer(min(time.Until(next), tick))
			select {
			case <-t.C:
			case <-ctx.Done():
				t.Stop()
				return ctx.Err()
			}
			continue
		}
		done, err := d.streamFrom(ctx, m, &have, &h)
		if done {
			break
		}
		var de *diskError
		var learned sizeLearned
		switch {
		case ctx.Err() != nil:
			return ctx.Err()
		case errors.As(err, &learned):
			return d.dropStream(learned)
		case errors.As(err, &de):
			return de
		case errors.Is(err, transport.ErrNoRanges):
			// It cannot resume: start over, and say so.
			d.st.changed()
			if err := d.st.f.Truncate(0); err != nil {
				return &diskError{fmt.Errorf("truncate %s: %w", d.st.part, err)}
			}
			have = 0
			if h != nil {
				h.Reset()
			}
			d.mu.Lock()
			d.doneB = 0
			m.reason = "cannot resume (it serves no ranges): started the file over"
			d.mu.Unlock()
		default:
			d.mu.Lock()
			d.judge(m, err, time.Now())
			d.mu.Unlock()
		}
	}
	return d.finishStream(have, h)
}

// dropStream removes the empty NAME.part and the stream's log, so that the
// file starts afresh in pieces, and returns learned.
func (d *download) dropStream(learned sizeLearned) error {
	d.closePieceLog()
	if d.st.f != nil {
		d.st.f.Close()
		d.st.f = nil
	}
	for _, name := range []string{d.logName(), d.st.part} {
		if err := d.st.remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return &diskError{err}
		}
	}
	return learned
}

// openStream opens NAME.part for a stream: kept, with its length as the
// bytes already fetched, when the piece log says an earlier stream of this
// name wrote it; otherwise empty.
func (d *download) openStream() (int64, error) {
	logged, _ := d.st.root.ReadFile(d.logName())
	keep := bytes.Equal(logged, streamMagic)
	flag := os.O_RDWR | os.O_CREATE
	if !keep {
		flag |= os.O_TRUNC
	}
	f, err := d.st.root.OpenFile(d.st.part, flag, 0o644)
	if err != nil {
		return 0, fmt.Errorf("open %s: %w", d.st.part, err)
	}
	d.st.f = f
	d.st.changed()
	var have int64
	if keep {
		fi, err := f.Stat()
		if err != nil {
			return 0, err
		}
		have = fi.Size()
	}
	if lf, err := d.st.root.OpenFile(d.logName(), os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o644); err == nil {
		if _, err := lf.Write(streamMagic); err != nil {
			lf.Close()
		} else {
			d.plog = &pieceLog{f: lf, end: int64(len(streamMagic))}
		}
	}
	return have, nil
}

// hashStreamed starts the whole-file hash over the n bytes already in
// NAME.part.
func (d *download) hashStreamed(n int64) (hash.Hash, error) {
	h, err := piece.NewHash(d.whole.Type)
	if err != nil {
		return nil, err
	}
	if _, err := io.Copy(h, io.NewSectionReader(d.st.f, 0, n)); err != nil {
		return nil, &diskError{fmt.Errorf("read back %s: %w", d.st.part, err)}
	}
	return h, nil
}

// streamMirror is the first mirror that can stream the file now. Called
// with d.mu held.
func (d *download) streamMirror(now time.Time) *mirror {
	for _, m := range d.mirrors {
		if _, ok := m.src.(transport.Streamer); ok && m.usable(now) {
			return m
		}
	}
	return nil
}

// streamFrom streams the file from m, from *have on, and reports whether
// it reached the end. *h is the whole-file hash so far (nil without one);
// a Digest the mirror sends gives one when none was known.
func (d *download) streamFrom(ctx context.Context, m *mirror, have *int64, h *hash.Hash) (bool, error) {
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	limit := d.stallLimit(m)
	stalled := time.AfterFunc(5*limit, cancel) // time to first byte: a busy server may think a while
	defer stalled.Stop()
	d.mu.Lock()
	m.conns++
	d.mu.Unlock()
	defer func() {
		d.mu.Lock()
		m.conns--
		d.mu.Unlock()
	}()
	rc, info, err := m.src.(transport.Streamer).Stream(sctx, *have)
	if err != nil {
		if ctx.Err() == nil && sctx.Err() != nil {
			return false, errStalled
		}
		return false, err
	}
	defer rc.Close()
	if *have == 0 && info.Size >= 0 && info.Ranges {
		return false, sizeLearned{info.Size}
	}
	if err := d.agreesDigest(info); err != nil {
		return false, err
	}
	if *h == nil {
		if best, ok := piece.Strongest(info.Digests); ok {
			d.whole = best
			if *h, err = d.hashStreamed(*have); err != nil {
				return false, err
			}
		}
	}
	bp := bufPool.Get().(*[]byte)
	defer bufPool.Put(bp)
	buf := (*bp)[:readSize]
	lastSample := time.Now()
	var got int64
	for {
		n, rerr := rc.Read(buf[:d.readChunk(readSize)]) // the limits in force now
		if n > 0 {
			now := time.Now()
			d.lastByte.Store(now.UnixNano())
			m.bytes.Add(int64(n))
			got += int64(n)
			// Time held back by a rate limit is not the mirror's stall.
			stalled.Stop()
			if err := d.pay(sctx, n); err != nil {
				return false, err
			}
			stalled.Reset(limit)
			if _, err := d.st.WriteAt(buf[:n], *have); err != nil {
				return false, &diskError{fmt.Errorf("write at %d: %w", *have, err)}
			}
			if *h != nil {
				(*h).Write(buf[:n])
			}
			*have += int64(n)
			d.mu.Lock()
			d.doneB = *have
			if got == int64(n) {
				m.fails, m.stalls = 0, 0
			}
			if dt := now.Sub(lastSample); dt >= tick {
				d.sample(dt)
				lastSample = now
			}
			_ = d.checkWaiting(now) // bytes arrived: no longer waiting
			d.mu.Unlock()
		}
		switch {
		case rerr == io.EOF:
			if info.Size >= 0 && *have != info.Size {
				return false, fmt.Errorf("%s: stream ended at %d bytes of %d: %w", m.name, *have, info.Size, io.ErrUnexpectedEOF)
			}
			return true, nil
		case rerr != nil && ctx.Err() == nil && sctx.Err() != nil:
			return false, errStalled
		case rerr != nil:
			return false, rerr
		}
	}
}

// agreesDigest checks the Digest a streaming mirror sends against the
// file's known hashes.
func (d *download) agreesDigest(info transport.Info) error {
	for _, got := range info.Digests {
		for _, want := range d.file.Hashes {
			if got.Type == want.Type && got.Value != want.Value {
				return fmt.Errorf("%w: %s digest %s, expected %s", transport.ErrMismatch, got.Type, got.Value, want.Value)
			}
		}
	}
	return nil
}

// finishStream checks a complete stream of size bytes against its hash
// and gives it the final name.
func (d *download) finishStream(size int64, h hash.Hash) error {
	d.initPieces(size)
	d.mu.Lock()
	for i := range d.pieces {
		d.pieces[i] = PieceDone
	}
	d.done, d.doneB, d.prefix = len(d.pieces), size, len(d.pieces)
	d.state = StateVerifying
	d.mu.Unlock()
	if h != nil {
		d.hashed.Store(size)
		if sum := fmt.Sprintf("%x", h.Sum(nil)); sum != d.whole.Value {
			// The bytes are kept for a look, but never resumed.
			d.removePieceLog()
			return fmt.Errorf("%w: %s %s, expected %s; %s kept", ErrHashMismatch, d.whole.Type, sum, d.whole.Value, d.st.part)
		}
	}
	if err := d.st.finish(); err != nil {
		return err
	}
	d.removePieceLog()
	return nil
}
