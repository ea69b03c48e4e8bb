package bridge

import (
	"errors"
	"testing"

	"braid/queue"
	"braid/queue/queuetest"
	"braid/ui"
)

// TestRemoveMany removes two of three jobs through the window's backend
// at once: they are gone from the queue and from what the window reads,
// and the third stays.
func TestRemoveMany(t *testing.T) {
	q := openQueue(t)
	b := newBackend(t, q)
	dest := t.TempDir()
	var ids []ui.JobID
	for _, name := range []string{"a.iso", "b.iso", "c.iso"} {
		id, err := q.Add(queue.NewJob{Source: name, Dest: dest, Doc: queuetest.Doc(1, 0, name), Paused: true})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, ui.JobID(id))
	}
	if err := b.RemoveMany([]ui.JobID{ids[0], ids[2]}); err != nil {
		t.Fatal(err)
	}
	jobs, err := b.Jobs()
	if err != nil {
		t.Fatal(err)
	}
	if len(jobs) != 1 || jobs[0].ID != ids[1] {
		t.Fatalf("the window reads %+v, want job %d alone", jobs, ids[1])
	}
	if _, err := b.Detail(ids[0], false); !errors.Is(err, queue.ErrNotFound) {
		t.Errorf("detail of a removed job: %v", err)
	}
}
