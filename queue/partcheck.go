package queue

import "braid/engine/piece"

// Trust is what a .part file may be trusted for, given what the queue
// recorded and the file as it is on disk now.
type Trust struct {
	// Done are the recorded pieces the .part can still hold.
	Done *piece.Bitfield
	// Cleared is how many recorded pieces were dropped because the .part
	// is missing or ends before them.
	Cleared int
	// Recheck: the .part is longer than the file can be, so it is not the
	// file the queue wrote; the pieces in Done count only after their bytes
	// are hashed again (piece hashes) and are dropped otherwise.
	Recheck bool
}

// CheckPart compares a file's recorded pieces with its .part on disk:
// partSize is the .part's length, or -1 when it does not exist. Recorded
// pieces that reach past the .part's end are cleared: the engine records a
// piece only after syncing its bytes, so a shorter .part means the file was
// truncated or replaced since. A .part longer than the file's size is
// marked for a recheck. recorded is not changed.
func CheckPart(recorded *piece.Bitfield, l piece.Layout, partSize int64) Trust {
	t := Trust{Done: recorded.Clone()}
	t.Recheck = l.Size >= 0 && partSize > l.Size
	for i := 0; i < t.Done.Len(); i++ {
		if !t.Done.Has(i) {
			continue
		}
		// Without a known size every piece is full length.
		off, n := int64(i)*l.Length, l.Length
		if l.Size >= 0 {
			off, n = l.Bounds(i)
		}
		if partSize < 0 || off+n > partSize {
			t.Done.Clear(i)
			t.Cleared++
		}
	}
	return t
}
