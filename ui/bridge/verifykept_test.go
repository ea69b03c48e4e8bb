package bridge

import (
	"os"
	"testing"

	"braid/internal/testkit"
	"braid/queue"
	"braid/queue/queuetest"
	"braid/ui"
)

// A torrent that fails Verify for one bad piece keeps its other pieces'
// bytes: its row says so (not "0 B of 768 KiB"), and so does the queue,
// which `braid queue list` reads.
func TestVerifyTorrentKeepsGoodBytes(t *testing.T) {
	t.Parallel()
	state, id, file, _, data := seedingAtQuit(t)
	q := queuetest.Open(t, queue.Open, state)
	b := New(q, nil)
	t.Cleanup(func() { b.Close() })
	// One byte changed in piece 5 of 12 (64 KiB pieces).
	f, err := os.OpenFile(file, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte{0xee}, 5*64<<10+3); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if err := b.Verify(id); err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, "verify", func() bool { return len(b.Active()) == 0 })
	size := int64(len(data))
	want := size - 64<<10
	j := jobByID(t, b, id)
	if !j.Mismatch || j.State != ui.Failed {
		t.Fatalf("after a changed byte the row is %s, mismatch %v (%q); want failed with a mismatch", j.State, j.Mismatch, j.Err)
	}
	if j.Size != size || j.Done != want {
		t.Errorf("the row says %d of %d bytes, want %d of %d: all but the bad piece is kept", j.Done, j.Size, want, size)
	}
	qj, err := q.Get(int64(id))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, done, total := qj.Progress(); done != want || total != size {
		t.Errorf("the queue says %d of %d bytes, want %d of %d", done, total, want, size)
	}
}
