package queue

import (
	"testing"

	"braid/engine"
	"braid/engine/piece"
	"braid/queue/queuetest"
)

// A file added before anyone said its size is counted, while it runs, in
// whole pieces of the default length; once it lands, the queue records
// the size its download learnt and counts its bytes by it, alone or in a
// batch's transaction.
func TestLandedRecordsLateSize(t *testing.T) {
	t.Parallel()
	const size = 200 << 10
	for _, batch := range []bool{false, true} {
		q := queuetest.Open(t, Open, t.TempDir())
		doc := queuetest.Doc(-1, 0, "late.bin")
		doc.Files[0].Hashes = nil
		id, err := q.Add(NewJob{Source: "http://a.example/late.bin", Dest: t.TempDir(), Doc: doc})
		if err != nil {
			t.Fatal(err)
		}
		if err := q.Journal(id).PiecesDone("late.bin", []int{0}); err != nil {
			t.Fatal(err)
		}
		j, err := q.Get(id)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, done, _ := j.Progress(); done != piece.DefaultLength {
			t.Fatalf("batch %v: before landing, %d bytes done, want the whole piece the journal counts (%d)", batch, done, piece.DefaultLength)
		}
		snap := &engine.Snapshot{Name: "late.bin", Size: size, Bytes: size, PieceLength: piece.DefaultLength, State: engine.StateDone, Created: true}
		if batch {
			b := q.NewJournalBatch()
			if err := b.Landed(id, "late.bin", snap); err != nil {
				t.Fatal(err)
			}
		} else if err := q.Landed(id, "late.bin", snap); err != nil {
			t.Fatal(err)
		}
		list, err := q.List()
		if err != nil {
			t.Fatal(err)
		}
		if len(list) != 1 {
			t.Fatalf("%d jobs listed", len(list))
		}
		_, pieces, done, total := list[0].Progress()
		if done != size || total != size || pieces != 1 {
			t.Errorf("batch %v: landed, the list says %d of %d bytes in %d pieces, want %d of %d in 1", batch, done, total, pieces, size, size)
		}
		bits, l, err := q.Pieces(id, "late.bin")
		if err != nil {
			t.Fatal(err)
		}
		if l.Size != size || l.Length != piece.DefaultLength || bits.Len() != 1 || !bits.Has(0) {
			t.Errorf("batch %v: stored layout %+v with %d of %d pieces, want one piece of %d bytes, done", batch, l, bits.Count(), bits.Len(), size)
		}
	}
}
