package ui

import (
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
)

// TestNameColumnKeepsItsMinimum: columns widened in a wide window and
// laid out in a narrow one leave the name its minimum (the others give
// up width, none below minColumn), where it used to get nothing and
// every row showed "…"; a drag of the name's edge stops at its minimum.
func TestNameColumnKeepsItsMinimum(t *testing.T) {
	c := &columns{widths: []float32{20, 0, 480, 130, 100, 60, 240, 110}, flexMin: minName}
	xs := c.edges(8, 900)
	if name := xs[2] - xs[1] - 4; name < minName-1 {
		t.Errorf("name laid out %v wide in 900, want at least %v (edges %v)", name, minName, xs)
	}
	for i := 2; i < 8; i++ {
		if w := xs[i+1] - xs[i]; w < minColumn {
			t.Errorf("column %d laid out %v wide, below %v", i, w, minColumn)
		}
	}
	if xs[8] > 900+4+1 {
		t.Errorf("columns end at %v, past the width 900", xs[8])
	}
	// Wide enough: widths as set, the name takes the rest.
	xs = c.edges(8, 2000)
	if w := xs[3] - xs[2]; w != 480+4 {
		t.Errorf("Size laid out %v in a wide row, want 484", w)
	}

	b := newMemBackend()
	sampleQueue(b)
	w, _ := newTestWindow(t, b)
	var handle *edgeHandle
	for _, o := range test.LaidOutObjects(w.Header.Content) {
		if h, ok := o.(*edgeHandle); ok && handle == nil {
			handle = h // the first: the name's
		}
	}
	w.Locked(func() {
		handle.Dragged(&fyne.DragEvent{Dragged: fyne.Delta{DX: -2000}})
		handle.DragEnd()
	})
	var name float32
	w.Locked(func() {
		xs := w.cols.edges(queueColumns, w.Header.row.Size().Width)
		name = xs[colName+1] - xs[colName] - 4
	})
	if name < minName-1 || name > minName+1 {
		t.Errorf("the name %v wide after a drag of its edge far left, want its minimum %v", name, minName)
	}
}

// TestAddedTextFits: the Added column says the time of a job added
// today and the date of an older one, each short enough for its width.
func TestAddedTextFits(t *testing.T) {
	now := time.Date(2026, 11, 29, 15, 30, 0, 0, time.Local)
	for _, c := range []struct {
		t    time.Time
		want string
	}{
		{time.Date(2026, 11, 29, 8, 5, 0, 0, time.Local), "08:05"},
		{time.Date(2026, 11, 28, 23, 59, 0, 0, time.Local), "2026-11-28"},
		{time.Date(2025, 1, 2, 3, 4, 0, 0, time.Local), "2025-01-02"},
		{time.Time{}, ""},
	} {
		if got := addedTextAt(c.t, now); got != c.want {
			t.Errorf("addedTextAt(%v) = %q, want %q", c.t, got, c.want)
		}
	}
	if got := addedFull(time.Date(2026, 11, 29, 8, 5, 0, 0, time.Local)); got != "2026-11-29 08:05" {
		t.Errorf("addedFull = %q", got)
	}
}
