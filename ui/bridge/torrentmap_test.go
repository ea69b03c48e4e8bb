package bridge

import (
	"testing"

	"braid/ui"
)

// A torrent job that no runner holds (finished in an earlier session)
// shows the torrent's own pieces, done as recorded: 12 pieces of 64 KiB,
// all done, not the queue's metalink layout of one 1 MiB piece missing
// beside "verified".
func TestStoredTorrentShowsItsPieces(t *testing.T) {
	state, id, _, _, _ := seedingAtQuit(t)
	q := openQueue2(t, state)
	b := New(q, nil) // not started: nothing seeds, nothing is live
	d, err := b.Detail(id, true)
	if err != nil {
		t.Fatal(err)
	}
	fd := d.Files[0]
	if fd.PieceLength != 64<<10 || fd.PieceCount != 12 || fd.Pieces.Len() != 12 || fd.PieceHash != "sha-1" {
		t.Fatalf("piece length %d, count %d, map of %d, hash %q; want 12 sha-1 pieces of 64 KiB", fd.PieceLength, fd.PieceCount, fd.Pieces.Len(), fd.PieceHash)
	}
	for i, s := range fd.Pieces.State {
		if s != ui.PieceDone {
			t.Errorf("piece %d of a verified torrent shown %v", i, s)
		}
	}
	// The Info tab's figures, without the map.
	if d, err := b.Detail(id, false); err != nil || d.Files[0].PieceCount != 12 || d.Files[0].PieceLength != 64<<10 {
		t.Errorf("without the map: %+v, %v", d.Files[0], err)
	}
}
