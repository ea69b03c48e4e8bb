package engine

import (
	"bytes"
	"context"
	"encoding/hex"
	"fmt"

	"braid/engine/piece"
)

// hashResult is the whole-file hash of NAME.part, in lower-case hex.
type hashResult struct {
	sum string
	err error
}

// hashPrefix computes the whole-file hash while the download runs: it
// follows the run of done pieces from the start of the file, reading them
// back (from the page cache, usually) as soon as they are on disk, so that
// when the last piece lands only the tail is left to hash. It returns when
// the whole file is hashed or ctx ends.
func (d *download) hashPrefix(ctx context.Context) hashResult {
	if d.whole.Type == "" {
		return hashResult{}
	}
	if d.pieceIsWhole() {
		// The one piece's check is the whole-file check.
		return d.awaitAll(ctx)
	}
	if d.piecesSuffice() {
		return d.awaitPieces(ctx)
	}
	h, err := piece.NewHash(d.whole.Type)
	if err != nil {
		return hashResult{err: err}
	}
	bp := bufPool.Get().(*[]byte)
	defer bufPool.Put(bp)
	buf := *bp
	var at int64
	for {
		d.mu.Lock()
		upto := d.size
		if d.prefix < len(d.pieces) {
			upto, _ = d.plan.Bounds(d.prefix)
		}
		d.mu.Unlock()
		for at < upto {
			if err := ctx.Err(); err != nil {
				return hashResult{err: err}
			}
			n := min(int64(len(buf)), upto-at)
			if _, err := d.st.ReadAt(buf[:n], at); err != nil {
				return hashResult{err: &diskError{fmt.Errorf("read back at %d: %w", at, err)}}
			}
			h.Write(buf[:n])
			at += n
			d.hashed.Store(at)
		}
		if at >= d.size {
			return hashResult{sum: hex.EncodeToString(h.Sum(nil))}
		}
		select {
		case <-d.advance:
		case <-ctx.Done():
			return hashResult{err: ctx.Err()}
		}
	}
}

// pieceIsWhole reports whether the file is one piece whose hash is the
// whole-file hash, of the same type, and none of it was taken from an
// earlier run: then the piece's check, made on the bytes as they arrived
// in this run, is the whole-file check, and reading the file back to hash
// it again would only double the work (a batch of small files is mostly
// such files). Bytes an earlier run left are read back as usual.
func (d *download) pieceIsWhole() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.plan.Verifiable() || d.plan.Count() != 1 || d.done > 0 || d.plan.Type != d.whole.Type {
		return false
	}
	want, err := hex.DecodeString(d.whole.Value)
	return err == nil && bytes.Equal(want, d.plan.Hashes[0])
}

// piecesSuffice reports whether the piece hashes alone prove the file, so
// that reading it back for the whole-file hash would only repeat them
// (DESIGN, "The engine's contract"; BitTorrent's rule, and aria2's): they
// are sha-256 or stronger and at least as strong as the whole-file hash
// (piece.Covers), they cover every byte (a plan has hashes only when it
// has one for each piece), each piece is checked in this
// run (none taken on the journal's word from an earlier one, whose bytes
// a crash may have changed since), and no signature is published, whose
// check the whole-file pass still goes with.
func (d *download) piecesSuffice() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.plan.Verifiable() && piece.Covers(d.plan.Type, d.whole.Type) && !d.trusted && d.file.Signature == nil
}

// awaitPieces returns, once every piece has passed its check, the
// whole-file hash the piece hashes stand for (see piecesSuffice), or ctx's
// error. The file is then proved by its piece hashes.
func (d *download) awaitPieces(ctx context.Context) hashResult {
	res := d.awaitAll(ctx)
	if res.err == nil {
		d.mu.Lock()
		d.byPieces = true
		d.mu.Unlock()
	}
	return res
}

// awaitAll waits until every piece is done and returns the published
// whole-file hash as the file's, or ctx's error.
func (d *download) awaitAll(ctx context.Context) hashResult {
	for {
		d.mu.Lock()
		done := d.prefix == len(d.pieces)
		d.mu.Unlock()
		if done {
			d.hashed.Store(d.size)
			return hashResult{sum: d.whole.Value}
		}
		select {
		case <-d.advance:
		case <-ctx.Done():
			return hashResult{err: ctx.Err()}
		}
	}
}
