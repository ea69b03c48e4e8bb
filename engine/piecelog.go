package engine

import (
	"bytes"
	"context"
	"encoding/binary"
	"hash"
	"io"
	"os"

	"braid/engine/piece"
)

// The piece log. The journal records pieces only after they are synced,
// about once a second, so a crash forgets up to a second of work although
// its bytes are in NAME.part. So every piece is also appended, as it
// finishes, to NAME.part.done: four bytes, never synced. After a crash of
// the process (kill -9, a panic), the kernel still writes both files, and
// the next run checks only the pieces the log names and the journal does
// not, against their piece hashes, instead of fetching them again or
// rehashing the whole file. After a power loss the log may name pieces
// whose bytes never reached the disk: with piece hashes they fail the
// check; without, the whole-file hash catches them.
const pieceLogSuffix = ".done"

// pieceLog is the open NAME.part.done; nil when it could not be opened,
// which costs only the salvage after a crash.
type pieceLog struct {
	f   *os.File
	end int64 // its length, where the next entry goes
}

// logName is the piece log's name inside the download's folder.
func (d *download) logName() string { return d.st.part + pieceLogSuffix }

// readPieceLog returns the pieces the last run's log names that done does
// not hold, within the file's piece count, and the partial pieces it
// recorded when it stopped (see partial.go).
func (d *download) readPieceLog(done *piece.Bitfield) ([]int, map[int]int64) {
	f, err := d.st.root.Open(d.logName())
	if err != nil {
		return nil, nil
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, 16*int64(len(d.pieces))+16))
	if err != nil {
		return nil, nil
	}
	seen := map[int]bool{}
	var out []int
	var partial map[int]int64
	for len(b) >= 4 {
		v := binary.LittleEndian.Uint32(b)
		b = b[4:]
		if v == partialMark {
			if len(b) < 8 {
				break // cut short: only a kill while it was written
			}
			p, n := int(binary.LittleEndian.Uint32(b)), int64(binary.LittleEndian.Uint32(b[4:]))
			b = b[8:]
			if p < len(d.pieces) {
				if partial == nil {
					partial = map[int]int64{}
				}
				partial[p] = n
			}
			continue
		}
		i := int(v)
		if i >= len(d.pieces) || seen[i] || (done != nil && done.Len() == len(d.pieces) && done.Has(i)) {
			continue
		}
		seen[i] = true
		out = append(out, i)
	}
	return out, partial
}

// salvageLogged keeps those of the logged pieces whose bytes in NAME.part
// match their piece hashes (all of them when there are none), marks them
// done and queues them for the journal.
func (d *download) salvageLogged(ctx context.Context, logged []int) {
	var h hash.Hash
	if d.plan.Verifiable() {
		h, _ = piece.NewHash(d.plan.Type)
	}
	var good []int
	for _, i := range logged {
		if ctx.Err() != nil {
			return
		}
		if h != nil {
			off, n := d.plan.Bounds(i)
			h.Reset()
			if _, err := io.Copy(h, io.NewSectionReader(d.st, off, n)); err != nil {
				continue
			}
			if !bytes.Equal(h.Sum(nil), d.plan.Hashes[i]) {
				continue
			}
		}
		good = append(good, i)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, i := range good {
		if d.pieces[i] == PieceDone {
			continue
		}
		_, n := d.plan.Bounds(i)
		d.pieces[i] = PieceDone
		d.done++
		d.doneB += n
		d.pending = append(d.pending, i)
	}
	d.advancePrefix()
}

// openPieceLog starts the log afresh, naming the pieces done so far. A
// file of one piece has none: its log could save one piece's fetch, and
// only after a crash in the moment between that piece's check and the
// rename that ends the download, while making and removing it costs two
// metadata writes a file, much of the disk's work in a batch of small
// files.
func (d *download) openPieceLog() {
	if len(d.pieces) == 1 {
		return
	}
	f, err := d.st.root.OpenFile(d.logName(), os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return
	}
	d.plog = &pieceLog{f: f}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.rewritePieceLog()
}

// rewritePieceLog makes the log name exactly the pieces done now. Called
// with d.mu held.
func (d *download) rewritePieceLog() {
	if d.plog == nil {
		return
	}
	var b []byte
	for i, st := range d.pieces {
		if st == PieceDone {
			b = binary.LittleEndian.AppendUint32(b, uint32(i))
		}
	}
	if err := d.plog.f.Truncate(0); err != nil {
		d.closePieceLog()
		return
	}
	if _, err := d.plog.f.WriteAt(b, 0); err != nil {
		d.closePieceLog()
		return
	}
	d.plog.end = int64(len(b))
}

// logPiece appends piece i to the log. Called with d.mu held, so entries
// never interleave.
func (d *download) logPiece(i int) {
	if d.plog == nil {
		return
	}
	var b [4]byte
	binary.LittleEndian.PutUint32(b[:], uint32(i))
	if _, err := d.plog.f.WriteAt(b[:], d.plog.end); err != nil {
		d.closePieceLog() // the journal still records the pieces
		return
	}
	d.plog.end += 4
}

// closePieceLog closes the log, keeping the file for the next run.
func (d *download) closePieceLog() {
	if d.plog != nil {
		d.plog.f.Close()
		d.plog = nil
	}
}

// removePieceLog deletes the log of a finished file.
func (d *download) removePieceLog() {
	d.closePieceLog()
	// A log left behind is harmless: the next run of the same name
	// checks what it names against that file's hashes.
	_ = d.st.remove(d.logName())
}
