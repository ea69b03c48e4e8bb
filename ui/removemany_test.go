package ui

import (
	"fmt"
	"slices"
	"testing"

	"fyne.io/fyne/v2"
)

// manyBackend is the in-memory backend that removes many jobs at once.
type manyBackend struct{ *memBackend }

func (b manyBackend) RemoveMany(ids []JobID) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if err := b.called("remove many %v", ids); err != nil {
		return err
	}
	for _, id := range ids {
		if _, i := b.find(id); i >= 0 {
			b.jobs = slices.Delete(b.jobs, i, i+1)
		}
	}
	return nil
}

// TestRemoveAllAtOnce selects every job (Ctrl+A), removes them (Delete,
// then Enter in the dialog) and checks that a backend able to remove many
// at once is asked once for all of them, not once a job: 10,000 removed
// one by one took a minute, one transaction each.
func TestRemoveAllAtOnce(t *testing.T) {
	b := manyBackend{newMemBackend()}
	for i := range 3 {
		b.put(Detail{Job: Job{Name: fmt.Sprintf("f%d.iso", i), State: Done, Size: 1 << 20, Done: 1 << 20}})
	}
	w, _ := newTestWindow(t, b)
	w.Settle()
	shortcutKey(w, &fyne.ShortcutSelectAll{})
	typeKey(w, fyne.KeyDelete)
	if !dialogOpen(w) {
		t.Fatal("Delete opened no dialog")
	}
	typeKey(w, fyne.KeyReturn)
	w.Settle()
	if calls := b.Calls(); !slices.Equal(calls, []string{"remove many [1 2 3]"}) {
		t.Errorf("calls %q, want one remove of the three", calls)
	}
	if n := w.model.length(); n != 0 {
		t.Errorf("the list shows %d rows after removing them all", n)
	}
}
