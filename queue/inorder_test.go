package queue

import (
	"errors"
	"testing"

	"braid/queue/queuetest"
)

// Whether a job downloads in order is kept in the state database: off for
// a new job, set and cleared, kept across a close and reopen, and a job
// that is not there is ErrNotFound.
func TestInOrderKept(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	q, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	a, err := q.Add(NewJob{Source: "http://x.example/a.meta4", Dest: t.TempDir(), Doc: queuetest.Doc(10, 0, "a")})
	if err != nil {
		t.Fatal(err)
	}
	b, err := q.Add(NewJob{Source: "http://x.example/b.meta4", Dest: t.TempDir(), Doc: queuetest.Doc(10, 0, "b")})
	if err != nil {
		t.Fatal(err)
	}
	if on, err := q.InOrder(a); err != nil || on {
		t.Fatalf("a new job in order: %v, %v; want off", on, err)
	}
	for _, id := range []int64{a, b} {
		if err := q.SetJob(id, InOrder(true)); err != nil {
			t.Fatal(err)
		}
	}
	if err := q.SetJob(b, InOrder(false)); err != nil {
		t.Fatal(err)
	}
	if err := q.Close(); err != nil {
		t.Fatal(err)
	}
	q = queuetest.Open(t, Open, dir)
	for id, want := range map[int64]bool{a: true, b: false} {
		if on, err := q.InOrder(id); err != nil || on != want {
			t.Errorf("job %d in order after a reopen: %v, %v; want %v", id, on, err, want)
		}
	}
	if err := q.SetJob(a+b+100, InOrder(true)); !errors.Is(err, ErrNotFound) {
		t.Errorf("setting a job that is not there: %v, want ErrNotFound", err)
	}
	if _, err := q.InOrder(a + b + 100); !errors.Is(err, ErrNotFound) {
		t.Errorf("reading a job that is not there: %v, want ErrNotFound", err)
	}
}
