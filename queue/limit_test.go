package queue

import (
	"errors"
	"maps"
	"testing"

	"braid/queue/queuetest"
)

// A job's own speed limit is kept in the state database: set, changed,
// listed, kept across a close and reopen, removed with 0, and gone with
// the job; a job that is not there is ErrNotFound.
func TestJobLimitKept(t *testing.T) {
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
	if j, err := q.Get(a); err != nil || j.Limit != 0 {
		t.Fatalf("a new job's limit: %d, %v, want none", j.Limit, err)
	}
	if err := q.SetJob(a, Limit(300<<10)); err != nil {
		t.Fatal(err)
	}
	if err := q.SetJob(b, Limit(5<<20)); err != nil {
		t.Fatal(err)
	}
	if err := q.SetJob(b, Limit(1<<20)); err != nil {
		t.Fatal(err)
	}
	if err := q.Close(); err != nil {
		t.Fatal(err)
	}

	q = queuetest.Open(t, Open, dir)
	got, err := q.Limits()
	if err != nil {
		t.Fatal(err)
	}
	if want := map[int64]int64{a: 300 << 10, b: 1 << 20}; !maps.Equal(got, want) {
		t.Fatalf("after a reopen the limits are %v, want %v", got, want)
	}
	if err := q.SetJob(a, Limit(0)); err != nil {
		t.Fatal(err)
	}
	if j, err := q.Get(a); err != nil || j.Limit != 0 {
		t.Fatalf("limit after removing it: %d, %v, want none", j.Limit, err)
	}
	if err := q.SetJob(b, Limit(-5)); err != nil {
		t.Fatal(err)
	}
	if j, _ := q.Get(b); j.Limit != 0 {
		t.Fatalf("a negative limit stored as %d, want none", j.Limit)
	}
	if err := q.Remove(b); err != nil {
		t.Fatal(err)
	}
	if err := q.SetJob(b, Limit(1)); !errors.Is(err, ErrNotFound) {
		t.Fatalf("setting a removed job's limit: %v, want ErrNotFound", err)
	}
}

// Get and List carry a job's own limit.
func TestJobLimitInGetAndList(t *testing.T) {
	t.Parallel()
	q := queuetest.Open(t, Open, t.TempDir())
	id, err := q.Add(NewJob{Source: "http://x.example/a.meta4", Dest: t.TempDir(), Doc: queuetest.Doc(10, 0, "a")})
	if err != nil {
		t.Fatal(err)
	}
	if err := q.SetJob(id, Limit(700<<10)); err != nil {
		t.Fatal(err)
	}
	j, err := q.Get(id)
	if err != nil || j.Limit != 700<<10 {
		t.Fatalf("Get: limit %d, %v", j.Limit, err)
	}
	jobs, err := q.List()
	if err != nil || len(jobs) != 1 || jobs[0].Limit != 700<<10 {
		t.Fatalf("List: %+v, %v", jobs, err)
	}
}
