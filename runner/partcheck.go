package runner

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"braid/engine/metalink"
	"braid/engine/piece"
	"braid/queue"
)

// Which recorded pieces of a .part the engine may take as done: the
// queue records pieces as the engine syncs them; the file on disk may
// have been cut short, replaced or grown since, and the runner checks it
// before each download resumes, so the journal never claims more than the
// disk holds.

// trustedPieces returns the pieces of job id's file f that the engine may
// take as done in its .part under dest (Request.Done), or nil to start the
// file afresh: the pieces the queue records (queue.Queue.RecordedPieces),
// checked against the .part (checkPart).
func trustedPieces(ctx context.Context, q *queue.Queue, id int64, dest string, f metalink.File) (*piece.Bitfield, error) {
	b, err := q.RecordedPieces(id, f)
	if err != nil || b == nil {
		return nil, err
	}
	return checkPart(ctx, q, id, dest, f, b)
}

// checkPart keeps of recorded, the pieces the queue records done for job
// id's file f, those its .part under dest still holds (partTrust), re-
// hashing them when the .part is longer than the file can be, and stores
// what it finds. It returns nil when no piece is left.
func checkPart(ctx context.Context, q *queue.Queue, id int64, dest string, f metalink.File, recorded *piece.Bitfield) (*piece.Bitfield, error) {
	root, err := os.OpenRoot(dest)
	if err != nil {
		return nil, destProblem(dest, err)
	}
	defer root.Close()
	part := filepath.FromSlash(f.Name) + ".part"
	size := int64(-1)
	if fi, err := root.Stat(part); err == nil && fi.Mode().IsRegular() {
		size = fi.Size()
	}
	t := partTrust(recorded, queue.LayoutOf(f), size)
	if t.recheck {
		if err := recheck(ctx, root, part, size, f, t.done); err != nil {
			return nil, err
		}
	}
	if t.done.Count() != recorded.Count() {
		if err := q.SetPieces(id, f.Name, t.done); err != nil {
			return nil, err
		}
	}
	if t.done.Count() == 0 {
		return nil, nil
	}
	return t.done, nil
}

// trust is what a .part file may be trusted for, given what the queue
// recorded and the file as it is on disk now.
type trust struct {
	// done are the recorded pieces the .part can still hold.
	done *piece.Bitfield
	// cleared is how many recorded pieces were dropped because the .part
	// is missing or ends before them.
	cleared int
	// recheck: the .part is longer than the file can be, so it is not the
	// file the queue wrote; the pieces in done count only after their bytes
	// are hashed again (piece hashes) and are dropped otherwise.
	recheck bool
}

// partTrust compares a file's recorded pieces with its .part on disk:
// partSize is the .part's length, or -1 when it does not exist. Recorded
// pieces that reach past the .part's end are cleared: the engine records a
// piece only after syncing its bytes, so a shorter .part means the file was
// truncated or replaced since. A .part longer than the file's size is
// marked for a recheck. recorded is not changed.
func partTrust(recorded *piece.Bitfield, l piece.Layout, partSize int64) trust {
	t := trust{done: recorded.Clone()}
	t.recheck = l.Size >= 0 && partSize > l.Size
	for i := 0; i < t.done.Len(); i++ {
		if !t.done.Has(i) {
			continue
		}
		// Without a known size every piece is full length.
		off, n := int64(i)*l.Length, l.Length
		if l.Size >= 0 {
			off, n = l.Bounds(i)
		}
		if partSize < 0 || off+n > partSize {
			t.done.Clear(i)
			t.cleared++
		}
	}
	return t
}

// recheck keeps in done only the pieces whose bytes in part match their
// piece hashes; without piece hashes nothing in a .part of the wrong size
// can be vouched for, and done is emptied.
func recheck(ctx context.Context, root *os.Root, part string, size int64, f metalink.File, done *piece.Bitfield) error {
	clear := func() {
		for i := range done.Len() {
			done.Clear(i)
		}
	}
	if !piece.PlanFor(f).Verifiable() {
		clear()
		return nil
	}
	file, err := root.Open(part)
	if err != nil {
		clear()
		return nil
	}
	defer file.Close()
	rep, err := piece.Verify(ctx, file, size, f, 0)
	if err != nil {
		return fmt.Errorf("recheck %s: %w", part, err)
	}
	for i := range done.Len() {
		if done.Has(i) && !rep.Good.Has(i) {
			done.Clear(i)
		}
	}
	return nil
}
