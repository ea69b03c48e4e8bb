package ui

import (
	"fmt"
	"testing"

	"fyne.io/fyne/v2"
)

// TestSelectionInQueueOrder selects more jobs than selectionScan, where
// Selection walks the queue instead of sorting, and fewer: both give the
// selected jobs in queue order, the job in the details pane among them,
// after moving one of them changed the order.
func TestSelectionInQueueOrder(t *testing.T) {
	b := newMemBackend()
	for i := range selectionScan + 10 {
		b.put(Detail{Job: Job{Name: fmt.Sprintf("f%03d.iso", i), State: Done, Size: 1 << 20, Done: 1 << 20}})
	}
	w, _ := newTestWindow(t, b)
	w.Settle()
	if err := b.Move(5, 0); err != nil { // job 5 first
		t.Fatal(err)
	}
	w.poll.reloadSoon()
	w.Settle()
	check := func(what string, want int) {
		t.Helper()
		var sel []Job
		var at []int
		w.Locked(func() {
			sel = w.Selection()
			for _, j := range sel {
				at = append(at, w.model.index[j.ID])
			}
		})
		if len(sel) != want {
			t.Fatalf("%s: %d selected, want %d", what, len(sel), want)
		}
		for i := 1; i < len(sel); i++ {
			if at[i-1] >= at[i] {
				t.Fatalf("%s: job %d before job %d, against the queue's order", what, sel[i-1].ID, sel[i].ID)
			}
		}
	}
	shortcutKey(w, &fyne.ShortcutSelectAll{})
	check("all", selectionScan+10)
	w.Locked(func() {
		w.clearSelection()
		w.SelectJobs(9, 5, 7) // 9 shows in the details pane
	})
	check("three", 3)
}
