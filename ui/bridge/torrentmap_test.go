package bridge

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"braid/internal/testkit"
	"braid/queue"
	"braid/queue/queuetest"
	"braid/ui"
)

// A torrent job that no runner holds (finished in an earlier session)
// shows the torrent's own pieces, done as recorded: 12 pieces of 64 KiB,
// all done, not the queue's metalink layout of one 1 MiB piece missing
// beside "verified".
func TestStoredTorrentShowsItsPieces(t *testing.T) {
	t.Parallel()
	state, id, _, _, _ := seedingAtQuit(t)
	q := queuetest.Open(t, queue.Open, state)
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

// Verify checks a done torrent against the torrent's own piece hashes:
// a good file stays done and verified (it failed as "does not match its
// hash ( mismatch)", checked against a metalink hash it never had); a
// changed byte fails its piece, and the map shows that piece missing.
// Repair marks the bad piece not done, gives the file back its .part
// name and queues the job, whose next run fetches that piece again from
// the swarm: the file is the seeder's again, at its name.
func TestVerifyTorrentJob(t *testing.T) {
	t.Parallel()
	state, id, file, _, data := seedingAtQuit(t)
	q := queuetest.Open(t, queue.Open, state)
	b := New(q, nil)
	t.Cleanup(func() { b.Close() })
	if err := b.Verify(id); err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, "verify", func() bool { return len(b.Active()) == 0 })
	j := jobByID(t, b, id)
	if j.State != ui.Done || j.Mismatch {
		t.Fatalf("a good torrent after Verify: %s, mismatch %v, %q", j.State, j.Mismatch, j.Err)
	}
	if d, _ := b.Detail(id, false); d.Files[0].State != ui.FileVerified || !strings.HasPrefix(d.Files[0].Verification, "verified (BitTorrent piece hashes); Verify checked it again at ") {
		t.Errorf("its file: %v, %q", d.Files[0].State, d.Files[0].Verification)
	}

	// One byte changed in piece 5 (64 KiB pieces).
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
	j = jobByID(t, b, id)
	qj, err := q.Get(int64(id))
	if err != nil {
		t.Fatal(err)
	}
	if !j.Mismatch || !strings.Contains(qj.Error, "1 of 12 pieces do not match the torrent's hashes") {
		t.Errorf("after a changed byte: %s, mismatch %v, %q", j.State, j.Mismatch, qj.Error)
	}
	d, err := b.Detail(id, true)
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range d.Files[0].Pieces.State {
		if want := ui.PieceDone; i == 5 {
			if s == want {
				t.Error("piece 5, which failed, is shown done")
			}
		} else if s != want {
			t.Errorf("piece %d shown %v", i, s)
		}
	}
	if err := b.Repair(id); err != nil {
		t.Fatalf("Repair of a torrent: %v", err)
	}
	testkit.WaitFor(t, "repair", func() bool { return len(b.Active()) == 0 })
	if j := jobByID(t, b, id); j.State != ui.Queued {
		t.Errorf("after Repair found a bad piece the job is %s (%q), want queued for its run", j.State, j.Err)
	}
	if _, err := os.Stat(file + ".part"); err != nil {
		t.Fatalf("the file to mend is not back at its .part name: %v", err)
	}
	b.Close()
	b = newBackend(t, q)
	if err := b.Start(true); err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, "the run to mend it", func() bool { return jobByID(t, b, id).State == ui.Done || jobByID(t, b, id).State == ui.Seeding })
	if got, err := os.ReadFile(file); err != nil || !bytes.Equal(got, data) {
		t.Errorf("after the run the file is not the seeder's: %v", err)
	}
}
