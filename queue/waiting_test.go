package queue

import (
	"testing"
	"time"

	"braid/queue/queuetest"
)

// A running job's next try is kept in its own column: set and cleared by
// SetWaiting, shown only while the job runs, and gone when it is claimed
// again; the error column is left alone.
func TestSetWaiting(t *testing.T) {
	t.Parallel()
	q := queuetest.Open(t, Open, t.TempDir())
	id, err := q.Add(NewJob{Source: "w.meta4", Dest: t.TempDir(), Doc: queuetest.Doc(10, 0, "w.bin")})
	if err != nil {
		t.Fatal(err)
	}
	next := time.Now().Add(20 * time.Second).Truncate(time.Millisecond)
	if err := q.SetWaiting(id, next, ""); err != nil {
		t.Fatal(err)
	}
	if j, _ := q.Get(id); !j.NextTry.IsZero() {
		t.Errorf("a queued job waits until %v; only a running one can", j.NextTry)
	}
	if ok, err := q.Claim(id); !ok || err != nil {
		t.Fatalf("claim: %v, %v", ok, err)
	}
	if err := q.SetWaiting(id, next, ""); err != nil {
		t.Fatal(err)
	}
	j, _ := q.Get(id)
	if !j.NextTry.Equal(next) || j.Error != "" {
		t.Errorf("running job: next try %v, error %q; want %v and no error", j.NextTry, j.Error, next)
	}
	jobs, _ := q.List()
	if len(jobs) != 1 || !jobs[0].NextTry.Equal(next) {
		t.Errorf("List does not carry the next try: %+v", jobs)
	}
	if err := q.Requeue(id); err != nil {
		t.Fatal(err)
	}
	if ok, _ := q.Claim(id); !ok {
		t.Fatal("requeued job could not be claimed")
	}
	if j, _ := q.Get(id); !j.NextTry.IsZero() {
		t.Errorf("claimed again, the job still waits until %v", j.NextTry)
	}
	if err := q.SetWaiting(id, next, ""); err != nil {
		t.Fatal(err)
	}
	// The reason is the job's error while it waits, without secrets.
	if err := q.SetWaiting(id, next, "dial tcp http://u:secret@h/: connection refused"); err != nil {
		t.Fatal(err)
	}
	if j, _ := q.Get(id); j.Error != "dial tcp http://h/: connection refused" {
		t.Errorf("waiting with a reason: error %q", j.Error)
	}
	if err := q.SetWaiting(id, time.Time{}, "ignored"); err != nil {
		t.Fatal(err)
	}
	if j, _ := q.Get(id); !j.NextTry.IsZero() || j.Error != "" {
		t.Errorf("cleared, the job still waits until %v, error %q", j.NextTry, j.Error)
	}
}
