package engine

import (
	"encoding/binary"
	"math"
	"os"

	"braid/engine/rootfile"
)

// Partial pieces. Without piece hashes a piece's first bytes are as good
// as its last: nothing checks it before the whole-file hash. So when a
// connection stops inside such a piece, the bytes it wrote are kept
// (download.partial), and the next connection for that piece asks from
// its first missing byte instead of its start. When the download stops
// short of its end (a pause, Ctrl-C, a failure), those counts are written
// to the piece log, after NAME.part is synced, as records of three
// little-endian uint32s: partialMark, the piece, the bytes. The next run
// reads them back, and openPieceLog's fresh log drops them, so a crash
// of that run never trusts a count written before bytes it may have
// changed since.
//
// A crash (kill -9, a power loss) writes no record: the pieces in flight
// start again from their first byte, as before. With piece hashes a piece
// is only proven when whole, so its partial bytes are not kept.
const partialMark = math.MaxUint32

// notePartial records that piece i holds n written bytes from its start,
// when the file has no piece hashes. Called with d.mu held.
func (d *download) notePartial(i int, n int64) {
	if d.plan.Verifiable() || n <= 0 || i < 0 || i >= len(d.pieces) || d.pieces[i] == PieceDone {
		return
	}
	if _, length := d.plan.Bounds(i); n >= length {
		return
	}
	if n > d.partial[i] {
		d.partial[i] = n
	}
}

// takePartial returns how many bytes at the start of piece i are written
// already, for a connection about to fetch it. Called with d.mu held.
func (d *download) takePartial(i int) int64 {
	if d.plan.Verifiable() || d.suspect != nil {
		// A suspect's bytes are compared with another mirror's as they
		// arrive (liar.go): every byte must come again.
		return 0
	}
	return d.partial[i]
}

// partialBytes is the bytes kept in partial pieces no connection holds.
// Called with d.mu held.
func (d *download) partialBytes() int64 {
	var n int64
	for i, k := range d.partial {
		if d.pieces[i] != PieceActive {
			n += k
		}
	}
	return n
}

// keepPartials takes the partial pieces the last run recorded, of those
// not done. Called before any connection starts.
func (d *download) keepPartials(p map[int]int64) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for i, n := range p {
		d.notePartial(i, n)
	}
}

// dropPartialRecords removes the records a file of one piece read back:
// it keeps no log while it runs (see openPieceLog), so nothing else would
// drop them before this run writes into the piece. A file of several
// pieces starts its log afresh.
func (d *download) dropPartialRecords(read map[int]int64) {
	if len(read) == 0 {
		return
	}
	if len(d.pieces) == 1 {
		_ = rootfile.Remove(d.st.root, d.logName())
	}
	d.journalKept(0)
}

// journalKept tells a KeptJournal the bytes kept in partial pieces.
// Failing, it costs only the paused job's shown progress.
func (d *download) journalKept(n int64) {
	if j, ok := d.req.Journal.(KeptJournal); ok {
		_ = j.KeptBytes(d.file.Name, n)
	}
}

// savePartials syncs NAME.part and writes the partial pieces to the piece
// log, for the next run to resume them from their first missing byte. It
// runs when the download ends short of its end, after the sync loop
// stopped and every connection ended. Failing, it costs only those bytes.
func (d *download) savePartials() {
	d.mu.Lock()
	var recs []byte
	var kept int64
	for i, n := range d.partial {
		if d.pieces[i] == PieceDone || n <= 0 || n > math.MaxUint32 {
			continue
		}
		kept += n
		recs = binary.LittleEndian.AppendUint32(recs, partialMark)
		recs = binary.LittleEndian.AppendUint32(recs, uint32(i))
		recs = binary.LittleEndian.AppendUint32(recs, uint32(n))
	}
	d.mu.Unlock()
	if len(recs) == 0 || d.st == nil || d.st.f == nil {
		return
	}
	if !d.st.clean() {
		if err := d.st.sync(); err != nil {
			return
		}
	}
	if d.plog == nil {
		// A file of one piece keeps no log while it runs (see
		// openPieceLog); one is made now, naming the pieces done.
		f, err := d.st.root.OpenFile(d.logName(), os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o644)
		if err != nil {
			return
		}
		d.plog = &pieceLog{f: f}
		d.mu.Lock()
		d.rewritePieceLog()
		d.mu.Unlock()
		if d.plog == nil {
			return
		}
	}
	if _, err := d.plog.f.WriteAt(recs, d.plog.end); err != nil {
		return
	}
	d.plog.end += int64(len(recs))
	d.journalKept(kept)
}
