package runner

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"sync"

	"braid/engine/piece"
	"braid/queue"
)

// packedSuffix names the file in which a member job keeps the archive's
// bytes of its member as they arrive (NAME.packed.part beside NAME.part),
// so that a run after a pause, a quit or a crash fetches only the pieces
// it does not have. A piece of it is recorded in the queue (the member's
// bitfield: the archive's pieces that cover it) only once its bytes are
// synced to disk; the member's CRC-32, checked as it is inflated, checks
// them all again.
const packedSuffix = ".packed.part"

// localHeaderLen is the fixed part of a ZIP local file header, which ends
// with the lengths of the name and the extra field that follow it.
const localHeaderLen = 30

// packedKeep is a member job's kept packed bytes: the archive's bytes
// [start, end) at offset -start in f.
type packedKeep struct {
	f          *os.File
	path       string
	start, end int64
	length     int64 // the archive's piece length
	first      int   // the archive's piece of covering piece 0
	record     func(i int) error

	mu     sync.Mutex
	kept   *piece.Bitfield // covering pieces whose bytes are in f, synced
	spans  [][2]int64      // archive bytes written to f this run
	failed error           // a write or record that failed: nothing more is kept
}

// openKeep opens job j's kept packed bytes of member m, with the pieces
// the queue records kept; a file of another length, or none, starts
// empty. It returns nil when the member's place in the archive is not
// known.
func openKeep(q *queue.Queue, j queue.Job, m queue.Member, length int64, first int) (*packedKeep, error) {
	start, end := m.Span()
	if start < 0 || end <= start {
		return nil, nil
	}
	kept, _, err := q.Pieces(j.ID, m.Name)
	if err != nil {
		return nil, err
	}
	name := filepath.FromSlash(m.Name + packedSuffix)
	root, err := os.OpenRoot(j.Dest)
	if err != nil {
		return nil, destProblem(j.Dest, err)
	}
	defer root.Close()
	if d := path.Dir(m.Name); d != "." {
		if err := root.MkdirAll(filepath.FromSlash(d), 0o755); err != nil {
			return nil, destProblem(j.Dest, err)
		}
	}
	f, err := root.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, destProblem(j.Dest, err)
	}
	fi, err := f.Stat()
	if err == nil && fi.Size() != end-start {
		// Not the file the recorded pieces are in: start it again.
		if err = f.Truncate(end - start); err == nil {
			kept = piece.NewBitfield(kept.Len())
			err = q.SetPieces(j.ID, m.Name, kept)
		}
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	k := &packedKeep{f: f, path: filepath.Join(j.Dest, name), start: start, end: end, length: length, first: first, kept: kept}
	journal := q.Journal(j.ID)
	k.record = func(i int) error { return journal.PiecesDone(m.Name, []int{i}) }
	return k, nil
}

// bounds are covering piece i's bytes of the member's span.
func (k *packedKeep) bounds(i int) (a, b int64) {
	p := int64(k.first + i)
	return max(p*k.length, k.start), min((p+1)*k.length, k.end)
}

// has reports whether covering piece i is kept.
func (k *packedKeep) has(i int) bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	return i >= 0 && i < k.kept.Len() && k.kept.Has(i)
}

// prefix is how many bytes from off on, of n, kept pieces hold.
func (k *packedKeep) prefix(off, n int64) int64 {
	at := off
	for at < off+n && at >= k.start && at < k.end {
		i := int(at/k.length) - k.first
		if !k.has(i) {
			break
		}
		_, b := k.bounds(i)
		at = min(b, off+n)
	}
	return at - off
}

// wrote keeps b, the archive's bytes at off, and records each covering
// piece it completes, once the file is synced.
func (k *packedKeep) wrote(off int64, b []byte) {
	a, z := max(off, k.start), min(off+int64(len(b)), k.end)
	if a >= z {
		return
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.failed != nil {
		return
	}
	if _, err := k.f.WriteAt(b[a-off:z-off], a-k.start); err != nil {
		k.failed = err
		return
	}
	if last := len(k.spans) - 1; last >= 0 && k.spans[last][0] <= a && k.spans[last][1] >= a {
		// A read goes on where it was: one span, however many writes.
		k.spans[last][1] = max(k.spans[last][1], z)
	} else {
		k.spans = append(k.spans, [2]int64{a, z})
	}
	if a == k.start && z-a >= localHeaderLen {
		// The local header: the member's name and extra field after it
		// are not read again (the directory gave them), so they count as
		// held.
		h := b[a-off:]
		names := int64(binary.LittleEndian.Uint16(h[26:])) + int64(binary.LittleEndian.Uint16(h[28:]))
		k.spans = append(k.spans, [2]int64{a + localHeaderLen, min(a+localHeaderLen+names, k.end)})
	}
	for i := int(a/k.length) - k.first; i <= int((z-1)/k.length)-k.first; i++ {
		if i < 0 || i >= k.kept.Len() || k.kept.Has(i) {
			continue
		}
		pa, pb := k.bounds(i)
		if !k.coveredLocked(pa, pb) {
			continue
		}
		if err := k.f.Sync(); err != nil {
			k.failed = err
			return
		}
		if err := k.record(i); err != nil {
			k.failed = err
			return
		}
		k.kept.Set(i)
	}
}

// coveredLocked reports whether this run's writes hold [a, b) whole.
func (k *packedKeep) coveredLocked(a, b int64) bool {
	at := a
	for moved := true; moved && at < b; {
		moved = false
		for _, s := range k.spans {
			if s[0] <= at && s[1] > at {
				at, moved = s[1], true
			}
		}
	}
	return at >= b
}

// read returns the kept bytes [off, off+n).
func (k *packedKeep) read(off, n int64) io.Reader {
	return io.NewSectionReader(k.f, off-k.start, n)
}

// close closes the file; with drop it deletes it too.
func (k *packedKeep) close(drop bool) error {
	err := k.f.Close()
	if drop {
		if rerr := os.Remove(k.path); rerr != nil && !errors.Is(rerr, os.ErrNotExist) {
			err = errors.Join(err, rerr)
		}
	}
	return err
}

// forget drops what a member job keeps: its file and its recorded pieces,
// for a member whose bytes proved bad or whose archive changed.
func (k *packedKeep) forget(q *queue.Queue, id int64, name string) error {
	k.mu.Lock()
	n := k.kept.Len()
	k.mu.Unlock()
	err := k.close(true)
	if serr := q.SetPieces(id, name, piece.NewBitfield(n)); serr != nil {
		err = errors.Join(err, fmt.Errorf("forget the kept pieces: %w", serr))
	}
	return err
}

// keptRead is a read of the archive that keeps what it delivers.
type keptRead struct {
	io.ReadCloser
	keep *packedKeep
	at   int64
}

func (r *keptRead) Read(p []byte) (int, error) {
	n, err := r.ReadCloser.Read(p)
	if n > 0 {
		r.keep.wrote(r.at, p[:n])
		r.at += int64(n)
	}
	return n, err
}

// readKept is src's ReadRange with the kept bytes at the front served
// from disk, and the rest kept as it arrives.
func readKept(ctx context.Context, k *packedKeep, read func(ctx context.Context, off, n int64) (io.ReadCloser, error), off, n int64) (io.ReadCloser, error) {
	have := k.prefix(off, n)
	if have == n {
		return io.NopCloser(k.read(off, n)), nil
	}
	rc, err := read(ctx, off+have, n-have)
	if err != nil {
		return nil, err
	}
	rest := &keptRead{ReadCloser: rc, keep: k, at: off + have}
	if have == 0 {
		return rest, nil
	}
	return struct {
		io.Reader
		io.Closer
	}{io.MultiReader(k.read(off, have), rest), rc}, nil
}
