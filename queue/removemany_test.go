package queue

import (
	"errors"
	"strings"
	"testing"

	"braid/queue/queuetest"
)

// TestRemoveMany takes two of three jobs out of the queue at once, with
// an ID not in the queue among them: that one is an error naming it, and
// the two others are gone all the same; the third stays.
func TestRemoveMany(t *testing.T) {
	t.Parallel()
	q := queuetest.Open(t, Open, t.TempDir())
	dest := t.TempDir()
	var ids []int64
	for _, name := range []string{"a.iso", "b.iso", "c.iso"} {
		id, err := q.Add(NewJob{Source: name, Dest: dest, Doc: queuetest.Doc(1, 0, name)})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	err := q.Remove(ids[0], 999, ids[2])
	if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "999") {
		t.Errorf("Remove with a job not in the queue: %v, want ErrNotFound naming 999", err)
	}
	jobs, err := q.List()
	if err != nil {
		t.Fatal(err)
	}
	if len(jobs) != 1 || jobs[0].ID != ids[1] {
		t.Fatalf("left %+v, want job %d alone", jobs, ids[1])
	}
	if _, err := q.Get(ids[0]); !errors.Is(err, ErrNotFound) {
		t.Errorf("a removed job: %v", err)
	}
	if err := q.Remove(); err != nil {
		t.Errorf("Remove of nothing: %v", err)
	}
}
