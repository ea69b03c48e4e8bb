package torrent

import (
	"io"
	"slices"
	"sync"
)

// The pieces being downloaded are held in memory: the library writes a
// piece 16 KiB at a time and then reads it all back to hash it, which was
// one system call per block and one per 32 KiB read (a fifth of braid's
// CPU in a torrent). Held, a piece is hashed from memory and reaches its
// files in one write per file once it verified (MarkComplete). A piece
// the library gives up on loses nothing that mattered: it keeps no record
// of a piece's blocks across a restart, so an unfinished piece is fetched
// whole again either way, and close writes what is held to disk, as it
// would have been.

const (
	// heldPieceMax is the longest piece held; longer ones are written
	// through, block by block.
	heldPieceMax = 4 << 20
	// heldMax bounds the memory all held pieces of a torrent take; a
	// piece begun beyond it is written through.
	heldMax = 2 << 20
)

// heldPieces are a torrent's pieces held in memory.
type heldPieces struct {
	mu     sync.Mutex
	pieces map[int]*heldPiece
	bytes  int64    // the length of every buffer allocated, in use or free
	free   [][]byte // buffers of finished pieces, for the next
	closed bool     // no more pieces are held
}

// heldPiece is one piece's blocks in memory.
type heldPiece struct {
	mu   sync.Mutex
	b    []byte     // the piece, as long as it is
	have [][2]int64 // the ranges of b written, sorted and merged
}

// write copies b, at off in piece i of length n, into the piece's buffer,
// starting one when the bounds allow. It reports false when the piece is
// not held: the caller writes b to disk.
func (h *heldPieces) write(i int, n int64, b []byte, off int64) bool {
	h.mu.Lock()
	p := h.pieces[i]
	if p == nil {
		if h.closed || n > heldPieceMax {
			h.mu.Unlock()
			return false
		}
		buf := h.buffer(n)
		if buf == nil {
			h.mu.Unlock()
			return false
		}
		if h.pieces == nil {
			h.pieces = map[int]*heldPiece{}
		}
		p = &heldPiece{b: buf}
		h.pieces[i] = p
	}
	p.mu.Lock()
	h.mu.Unlock()
	defer p.mu.Unlock()
	if p.b == nil { // dropped meanwhile
		return false
	}
	copy(p.b[off:], b)
	p.have = addRange(p.have, off, off+int64(len(b)))
	return true
}

// buffer returns a buffer of n bytes, reusing a free one, or nil when a
// new one would pass heldMax. Call with h.mu held.
func (h *heldPieces) buffer(n int64) []byte {
	for k, b := range h.free {
		if int64(cap(b)) >= n {
			h.free = slices.Delete(h.free, k, k+1)
			return b[:n]
		}
	}
	if h.bytes+n > heldMax {
		return nil
	}
	h.bytes += n
	return make([]byte, n)
}

// get returns piece i when it is held.
func (h *heldPieces) get(i int) *heldPiece {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.pieces[i]
}

// drop stops holding piece i, once its bytes are on disk or unwanted. A
// read that found the piece before sees it empty and reads the disk, so
// the buffer can serve the next piece.
func (h *heldPieces) drop(i int) {
	h.mu.Lock()
	p := h.pieces[i]
	delete(h.pieces, i)
	h.mu.Unlock()
	if p == nil {
		return
	}
	p.mu.Lock()
	b := p.b
	p.b, p.have = nil, nil
	p.mu.Unlock()
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.closed {
		h.free = append(h.free, b[:cap(b)])
	}
}

// close stops holding pieces and returns those held, by index.
func (h *heldPieces) close() map[int]*heldPiece {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.closed = true
	held := h.pieces
	h.pieces, h.free = nil, nil
	return held
}

// read copies [off, off+len(b)) into b when all of it is held, and
// reports whether it was.
func (p *heldPiece) read(b []byte, off int64) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	end := off + int64(len(b))
	for _, r := range p.have {
		if r[0] <= off && r[1] >= end {
			copy(b, p.b[off:end])
			return true
		}
	}
	return false
}

// overlay copies the held bytes of [off, off+len(b)) over b, read from
// disk: what is held is newer.
func (p *heldPiece) overlay(b []byte, off int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	end := off + int64(len(b))
	for _, r := range p.have {
		if lo, hi := max(r[0], off), min(r[1], end); lo < hi {
			copy(b[lo-off:hi-off], p.b[lo:hi])
		}
	}
}

// whole calls f with the piece's bytes when every one of them is held,
// and reports whether it did.
func (p *heldPiece) whole(f func([]byte)) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.have) != 1 || p.have[0][0] != 0 || p.have[0][1] != int64(len(p.b)) {
		return false
	}
	f(p.b)
	return true
}

// addRange adds [lo, hi) to the sorted, merged ranges rs.
func addRange(rs [][2]int64, lo, hi int64) [][2]int64 {
	if lo >= hi {
		return rs
	}
	k := 0
	for k < len(rs) && rs[k][1] < lo {
		k++
	}
	j := k
	for j < len(rs) && rs[j][0] <= hi {
		lo, hi = min(lo, rs[j][0]), max(hi, rs[j][1])
		j++
	}
	return slices.Replace(rs, k, j, [2]int64{lo, hi})
}

// WriteTo writes the piece to w (the library's hash): from memory when
// the piece is held whole, else read back from its files.
func (p *pieceImpl) WriteTo(w io.Writer) (int64, error) {
	var (
		n   int
		err error
	)
	if hp := p.ts.held.get(p.index); hp != nil && hp.whole(func(b []byte) { n, err = w.Write(b) }) {
		return int64(n), err
	}
	// As the library would: 32 KiB at a time. Pooled reads of 256 KiB
	// cost the torrent case 6-8 MiB more peak memory for no CPU saved.
	return io.Copy(w, io.NewSectionReader(p, 0, p.length))
}
