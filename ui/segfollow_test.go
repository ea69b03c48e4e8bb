package ui

import "testing"

// TestSegmentsFollowTheSelection: with the Segments tab open, selecting
// another job shows that job's pieces from the next reading, not "No
// pieces to show" until the tab is switched.
func TestSegmentsFollowTheSelection(t *testing.T) {
	b := newMemBackend()
	a := b.put(Detail{Job: Job{Name: "a.iso", State: Paused, Size: 200 << 20, ETA: -1},
		Files: []FileDetail{{Name: "a.iso", Size: 200 << 20, PieceLength: 1 << 20, Pieces: smallMap()}}})
	other := pieceMap(run{3, PieceDone, NoMirror}, run{5, PieceMissing, NoMirror})
	c := b.put(Detail{Job: Job{Name: "c.iso", State: Paused, Size: 8 << 20, ETA: -1},
		Files: []FileDetail{{Name: "c.iso", Size: 8 << 20, PieceLength: 1 << 20, Pieces: other}}})
	w, _ := newTestWindow(t, b)
	caption := func() string { return w.Details.SegSummary.String() }
	w.Locked(func() {
		w.Select(a)
		w.Details.Tabs.Select(w.Details.SegmentsTab)
	})
	w.Settle()
	if want := smallMap().Summary(); len(caption()) < len(want) || caption()[:len(want)] != want {
		t.Fatalf("a's segment map says %q, want %q", caption(), want)
	}
	w.Locked(func() { w.Select(c) })
	w.Settle()
	if want := other.Summary(); len(caption()) < len(want) || caption()[:len(want)] != want {
		t.Errorf("after selecting c the segment map says %q, want %q", caption(), want)
	}
}
