package bridge

import (
	"braid/engine/torrent"
	"braid/queue"
)

// keepCheckedBytes records, for a torrent file a Verify found bad pieces
// in, the bytes it keeps: its size less its bytes in those pieces, as a
// stopped torrent records what it keeps (runner's keepTorrentBytes). The
// file is no longer verified then, and the queue counts a torrent's file
// by these bytes alone (its pieces are per torrent), so without them the
// row would say "0 B" of a file all but one piece of which is good.
func keepCheckedBytes(q *queue.Queue, id int64, spec *torrent.Spec, name string, bad []int) {
	sh, ok, err := spec.Shape()
	if err != nil || !ok {
		return
	}
	for _, f := range sh.Files {
		if f.Name != name {
			continue
		}
		kept := f.Size
		for _, p := range bad {
			start := max(int64(p)*sh.PieceLength, f.Offset)
			end := min(int64(p+1)*sh.PieceLength, f.Offset+f.Size)
			kept -= max(end-start, 0)
		}
		_ = q.Journal(id).KeptBytes(name, max(kept, 0)) // progress shown, not the check's outcome
		return
	}
}
