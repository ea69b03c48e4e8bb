package ui

import (
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
)

func shownNames(w *Window) []string {
	var out []string
	for i := range w.List.Length() {
		j, _ := w.model.row(i)
		out = append(out, j.Name[:3])
	}
	return out
}

// TestSortByColumn clicks the Size header: ascending, then descending,
// then back to queue order; the selection stays on its job; a job whose
// size becomes known moves to its place; and a drag does not move jobs
// while the list is sorted (its rows are not the queue's order).
func TestSortByColumn(t *testing.T) {
	b := newMemBackend()
	sampleQueue(b)
	w, _ := newTestWindow(t, b)
	queueOrder := []string{"deb", "ubu", "fed", "go1", "ble"}
	if got := shownNames(w); !slices.Equal(got, queueOrder) {
		t.Fatalf("queue order %v", got)
	}
	w.Select(JobID(3)) // fedora
	size := w.Header.Cells[colSize]
	test.Tap(size)
	if got, want := shownNames(w), []string{"go1", "deb", "ble", "fed", "ubu"}; !slices.Equal(got, want) {
		t.Errorf("by size: %v, want %v", got, want)
	}
	if !size.arrow.Visible() {
		t.Error("the sorted column shows no arrow")
	}
	if i, ok := w.model.rowOf(w.Selected()); !ok || w.Selected() != JobID(3) || i != 3 {
		t.Errorf("the selection did not follow its job: row %d", i)
	}
	test.Tap(size)
	if got, want := shownNames(w), []string{"ubu", "fed", "ble", "deb", "go1"}; !slices.Equal(got, want) {
		t.Errorf("by size, descending: %v, want %v", got, want)
	}
	// Live progress that changes the key re-sorts.
	b.update(JobID(1), func(d *Detail) { d.Size = 7 << 30 })
	w.Locked(w.Tick)
	if got := shownNames(w); got[0] != "deb" {
		t.Errorf("after debian grew to 7 GiB: %v", got)
	}
	// No moves by drag while sorted.
	before := len(b.Calls())
	w.Locked(func() { w.dropRow(JobID(1), 200, 40) })
	w.Settle()
	if len(b.Calls()) != before {
		t.Errorf("a drag moved jobs in a sorted list: %q", b.Calls()[before:])
	}
	test.Tap(size)
	if got := shownNames(w); !slices.Equal(got, queueOrder) {
		t.Errorf("third click: %v, want queue order", got)
	}
	if size.arrow.Visible() {
		t.Error("queue order still shows an arrow")
	}
}

// TestColumnsKept resizes a column and sorts, then builds a new window on
// the same app (its preferences, as after a restart): both come back.
// The name column grows by taking from the next.
func TestColumnsKept(t *testing.T) {
	b := newMemBackend()
	sampleQueue(b)
	w, _ := newTestWindow(t, b)
	before := w.ColumnWidths()
	w.Locked(func() {
		w.ResizeColumn(colSize, 40)
		w.ResizeColumn(colName, 30) // takes from Size
		w.ResizeColumn(colState, -1000)
		w.SortBy(colName)
		w.SortBy(colName)
	})
	got := w.ColumnWidths()
	if got[colSize] != before[colSize]+10 || got[colProgress] != before[colProgress]-40 || got[colName] != 0 ||
		got[colState] != minColumn || got[colAdded] != before[colAdded]+before[colState]-minColumn {
		t.Fatalf("widths %v from %v", got, before)
	}
	w2 := New(w.App, b, Options{})
	t.Cleanup(func() { w2.Stop(); w2.Win.Close() })
	if got2 := w2.ColumnWidths(); !slices.Equal(got2, got) {
		t.Errorf("widths after a restart %v, want %v", got2, got)
	}
	if col, desc := w2.Sort(); col != colName || !desc {
		t.Errorf("sort after a restart: column %d desc %v", col, desc)
	}
	// Widths from an older set of columns, or nonsense, give the defaults.
	nan := strings.Split(widthsText(defaultQueueWidths), ",")
	nan[len(nan)-1] = "NaN"
	for _, v := range []string{"1,2,3", "20,0,80,x,100,60,250,120", "20,50,80,130,100,60,250,120", "", strings.Join(nan, ",")} {
		if got := parseWidths(v); !slices.Equal(got, defaultQueueWidths) {
			t.Errorf("parseWidths(%q) = %v", v, got)
		}
	}
	for _, v := range []string{"", "0", "99", "-99", "abc"} {
		if s := parseSort(v); s.on() {
			t.Errorf("parseSort(%q) = %+v", v, s)
		}
	}
}

// TestHeaderHandleResizes drags a header handle in two steps as the
// driver reports a drag.
func TestHeaderHandleResizes(t *testing.T) {
	b := newMemBackend()
	sampleQueue(b)
	w, _ := newTestWindow(t, b)
	var handle *edgeHandle
	for _, o := range test.LaidOutObjects(w.Header.Content) {
		if h, ok := o.(*edgeHandle); ok {
			handle = h // the last: the State column's
		}
	}
	if handle == nil {
		t.Fatal("no resize handle in the header")
	}
	before := w.ColumnWidths()[colState]
	row := func() *jobRow {
		for _, o := range test.LaidOutObjects(w.List) {
			if r, ok := o.(*jobRow); ok {
				return r
			}
		}
		t.Fatal("no row in the list")
		return nil
	}
	addedAt := row().added.Position().X
	w.Locked(func() {
		handle.Dragged(&fyne.DragEvent{Dragged: fyne.Delta{DX: 10}})
		handle.Dragged(&fyne.DragEvent{Dragged: fyne.Delta{DX: 15}})
		handle.DragEnd()
	})
	if got := w.ColumnWidths()[colState]; got != before+25 {
		t.Errorf("State column %v after a 25 px drag, was %v", got, before)
	}
	// The rows follow: the edge moved with the mouse, so the Added
	// cell after State starts 25 further right.
	if got := row().added.Position().X; got != addedAt+25 {
		t.Errorf("a row's Added cell at x=%v after the State|Added edge moved 25 right, was at %v", got, addedAt)
	}
	if v := w.App.Preferences().String(prefWidths); v == "" {
		t.Error("the new widths were not kept")
	}
}
