package engine

import (
	"context"
	"errors"
	"fmt"
	"hash"
	"io"

	"braid/engine/piece"
)

// Span is a run of a file's bytes: Len bytes from Off.
type Span struct{ Off, Len int64 }

// Mend is what Request.Parity is given to rebuild: the pieces of the file
// that no mirror could send good (every mirror that had them sent bad
// data, or no mirror is left), once every other piece is done.
type Mend struct {
	Name string // the file's name
	Size int64
	// Part is NAME.part, read and written in place. A parity set rebuilds
	// whole slices, which need not line up with pieces: a rebuild must
	// write only within Damaged (and, when Checked is false, within the
	// slices it found damaged itself), never over a piece already proven.
	Part interface {
		io.ReaderAt
		io.WriterAt
	}
	// Damaged are the byte runs of the pieces to rebuild, in order and
	// merged; Pieces is how many pieces they are.
	Damaged []Span
	Pieces  int
	// Checked says every byte outside Damaged is proven by a piece hash;
	// false when the file has no piece hashes, so that its other bytes
	// are only complete, and a rebuild should check them against the
	// parity set too.
	Checked bool
	// Wrote is set by the rebuild: the byte runs it wrote, in order.
	Wrote []Span
}

// ErrParity wraps why a file's parity set could not rebuild the pieces no
// mirror could send (not enough recovery blocks, a set for other bytes,
// a set that could not be fetched). NAME.part and the pieces done stay
// for a later try.
var ErrParity = errors.New("the parity set could not rebuild the file")

// mendFromParity asks Request.Parity to rebuild the pieces that are not
// done when no mirror can send them (cause says why), then checks each
// rebuilt piece against its hash and marks it done. It returns nil when
// every piece is done, else an error that ends the download. No connection
// is open while it runs.
func (d *download) mendFromParity(ctx context.Context, cause error) error {
	d.mu.Lock()
	var missing []int
	for i, st := range d.pieces {
		if st != PieceDone {
			missing = append(missing, i)
		}
	}
	d.rebuilding = len(missing)
	d.mu.Unlock()
	defer func() {
		d.mu.Lock()
		d.rebuilding = 0
		d.mu.Unlock()
	}()
	if len(missing) == 0 {
		return nil
	}
	m := &Mend{Name: d.file.Name, Size: d.size, Part: d.st, Pieces: len(missing), Checked: d.plan.Verifiable()}
	for _, i := range missing {
		off, n := d.plan.Bounds(i)
		if k := len(m.Damaged) - 1; k >= 0 && m.Damaged[k].Off+m.Damaged[k].Len == off {
			m.Damaged[k].Len += n
			continue
		}
		m.Damaged = append(m.Damaged, Span{off, n})
	}
	err := d.req.Parity(ctx, m)
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if err != nil {
		return fmt.Errorf("%w; %w: %w", cause, ErrParity, err)
	}
	// The set proves its own slices; the pieces' hashes prove the bytes
	// the publisher meant. A piece that fails its hash now stays bad.
	var h hash.Hash
	if d.plan.Verifiable() {
		if h, err = piece.NewHash(d.plan.Type); err != nil {
			return err
		}
	}
	good := make([]bool, len(missing))
	for k, i := range missing {
		if h == nil {
			good[k] = true
			continue
		}
		off, n := d.plan.Bounds(i)
		h.Reset()
		if _, err := io.Copy(h, io.NewSectionReader(d.st, off, n)); err != nil {
			return &diskError{fmt.Errorf("read back piece %d: %w", i, err)}
		}
		good[k] = string(h.Sum(nil)) == string(d.plan.Hashes[i])
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	failed := 0
	for k, i := range missing {
		if !good[k] {
			d.pieces[i] = PieceBad
			failed++
			continue
		}
		_, n := d.plan.Bounds(i)
		d.pieces[i] = PieceDone
		d.filler[i] = FilledByParity
		d.done++
		d.doneB += n
		d.rebuilt++
		d.pending = append(d.pending, i)
		delete(d.partial, i)
		d.logPiece(i)
	}
	d.advancePrefix()
	if failed > 0 {
		return fmt.Errorf("%w; %w: %d of the %d pieces rebuilt from it fail their %s hash (the parity set is for other bytes)",
			cause, ErrParity, failed, len(missing), d.plan.Type)
	}
	return nil
}

// mendMismatch asks Request.Parity, once, to find and rebuild the damaged
// slices of a complete file without piece hashes whose whole-file hash
// did not match (mismatch says so), and returns the file's hash after,
// in hex. The pieces it wrote in count as rebuilt.
func (d *download) mendMismatch(ctx context.Context, mismatch error) (string, error) {
	m := &Mend{Name: d.file.Name, Size: d.size, Part: d.st}
	if err := d.req.Parity(ctx, m); err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		return "", fmt.Errorf("%w; %w: %w", mismatch, ErrParity, err)
	}
	d.mu.Lock()
	for _, w := range m.Wrote {
		if w.Len <= 0 {
			continue
		}
		for i := int(w.Off / d.plan.Length); i < len(d.pieces); i++ {
			if off, _ := d.plan.Bounds(i); off >= w.Off+w.Len {
				break
			}
			if d.filler[i] != FilledByParity {
				d.filler[i] = FilledByParity
				d.rebuilt++
			}
		}
	}
	d.mu.Unlock()
	return d.hashAll(ctx)
}

// hashAll reads the whole file through its whole-file hash and returns
// the sum in hex.
func (d *download) hashAll(ctx context.Context) (string, error) {
	d.setState(StateVerifying)
	h, err := piece.NewHash(d.whole.Type)
	if err != nil {
		return "", err
	}
	bp := bufPool.Get().(*[]byte)
	defer bufPool.Put(bp)
	buf := *bp
	d.hashed.Store(0)
	for at := int64(0); at < d.size; {
		if err := ctx.Err(); err != nil {
			return "", err
		}
		n := min(int64(len(buf)), d.size-at)
		if _, err := d.st.ReadAt(buf[:n], at); err != nil {
			return "", &diskError{fmt.Errorf("read back at %d: %w", at, err)}
		}
		h.Write(buf[:n])
		at += n
		d.hashed.Store(at)
	}
	return fmt.Sprintf("%x", h.Sum(nil)), nil
}

// parityProof reads the whole file through its whole-file hash after
// pieces were rebuilt from parity, when the piece hashes alone would
// otherwise have proved it: a rebuild is checked by the file's own hash.
func (d *download) parityProof(ctx context.Context, sum string) (string, error) {
	d.mu.Lock()
	redo := d.rebuilt > 0 && d.byPieces
	d.mu.Unlock()
	if !redo {
		return sum, nil
	}
	sum, err := d.hashAll(ctx)
	if err == nil {
		d.mu.Lock()
		d.byPieces = false
		d.mu.Unlock()
	}
	return sum, err
}
