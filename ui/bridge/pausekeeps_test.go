package bridge

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"braid/engine/mirrortest"
	"braid/internal/testkit"
	"braid/ui"
)

// TestPauseKeepsBytesWithoutHashes pauses a plain link's download, whose
// server publishes no hash, a fifth of the way through: the job keeps the
// pieces it has (the row, the queue after a fresh look, the .part), and
// Resume asks the server only for the rest (Range requests), so the
// finished file is whole and the server sent it about once. (What a
// connection had of a piece it had not finished, under 1 MiB each, is
// fetched again: progress is kept by the piece.)
func TestPauseKeepsBytesWithoutHashes(t *testing.T) {
	t.Parallel()
	data := payload(256 * pieceLen)
	m := mirrortest.New(t, data, mirrortest.Path("/pub/plain.bin"), mirrortest.Rate(4<<20))
	q := openQueue(t)
	b := newBackend(t, q)
	ctx := context.Background()
	doc, err := b.Open(ctx, m.URL())
	if err != nil {
		t.Fatal(err)
	}
	if len(doc.Files) != 1 || len(doc.Files[0].Hashes) != 0 || doc.Files[0].Pieces != nil {
		t.Fatalf("the server was to publish no hash: %+v", doc.Files)
	}
	dir := t.TempDir()
	id, err := b.Add(ctx, ui.AddRequest{Source: m.URL(), Doc: doc, Dir: dir, Paused: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Start(false); err != nil {
		t.Fatal(err)
	}
	if err := b.Resume(id); err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, "a fifth of the download", func() bool { return jobByID(t, b, id).Progress() >= 0.2 })
	if err := b.Pause(id); err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, "the pause", func() bool { return jobByID(t, b, id).State == ui.Paused })
	kept := jobByID(t, b, id).Done
	// The mirror's count of bytes written is the measure once its
	// responses have ended, as in TestPauseLetsGoAtOnce: a write the
	// kernel takes after braid closed the connection counts there, though
	// braid never reads it (32,768 bytes once, under Wine and load).
	if !testkit.Eventually(connectionsClosedWithin, func() bool { return m.InFlight().Now() == 0 }) {
		t.Errorf("the mirror still had %d responses going %s after the row said Paused", m.InFlight().Now(), connectionsClosedWithin)
	}
	served := m.BytesServed()
	if qj, err := q.Get(int64(id)); err == nil {
		d, p, db, sz := qj.Progress()
		t.Logf("queue: state %v, done pieces %d of %d; bytes %d of %d; served so far %d", qj.State, d, p, db, sz, m.BytesServed())
	}
	if kept < int64(len(data))/8 {
		t.Fatalf("paused at a fifth or more, the row keeps %d of %d bytes", kept, len(data))
	}
	fi, err := os.Stat(filepath.Join(dir, "plain.bin.part"))
	if err != nil || fi.Size() < kept {
		t.Fatalf("the .part after the pause: %v, %v; the row says %d bytes", fi, err, kept)
	}
	// Paused is paused: the server sends nothing more, and the row stays.
	time.Sleep(1500 * time.Millisecond)
	if more := m.BytesServed() - served; more > 0 {
		t.Errorf("the server sent %d bytes after braid's connections closed", more)
	}
	if now := jobByID(t, b, id).Done; now != kept {
		t.Errorf("the paused row said %d bytes, later %d", kept, now)
	}
	// Opened again (a restart), the queue still says so.
	if again := jobByID(t, newBackend(t, q), id).Done; again != kept {
		t.Errorf("a fresh look at the queue says %d bytes, the paused row %d", again, kept)
	}

	before := len(m.Ranges())
	if err := b.Resume(id); err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, "the download", func() bool {
		j := jobByID(t, b, id)
		if j.State == ui.Failed {
			t.Fatalf("failed: %s", j.Err)
		}
		return j.State == ui.Done
	})
	got, err := os.ReadFile(filepath.Join(dir, "plain.bin"))
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("the finished file: %d bytes, %v; want the %d served", len(got), err, len(data))
	}
	for _, r := range m.Ranges()[before:] {
		if r.Method == "GET" && r.Status != 206 {
			t.Errorf("after the resume a GET for the whole file (status %d), not a Range: %+v", r.Status, r)
		}
	}
	if served, max := m.BytesServed(), int64(len(data))*5/4; served > max {
		t.Errorf("the server sent %d bytes for a %d-byte file paused once: the kept bytes were fetched again", served, len(data))
	}
}
