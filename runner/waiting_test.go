package runner

import (
	"context"
	"testing"
	"time"

	"braid/engine"
	"braid/engine/mirrortest"
	"braid/internal/testkit"
	"braid/queue"
	"braid/queue/queuetest"
)

// A job whose only mirror goes away waits instead of failing, and the
// queue says until when (Job.NextTry) for `queue list` and the window,
// leaving its error empty; once the mirror is back the next try goes and
// the job finishes.
func TestRunWaitsForTheNetwork(t *testing.T) {
	t.Parallel()
	data := testkit.Data(2 << 20)
	m := mirrortest.New(t, data, mirrortest.Rate(1<<20))
	q := queuetest.Open(t, queue.Open, t.TempDir())
	id, err := q.Add(queue.NewJob{Source: "w.meta4", Dest: t.TempDir(), Doc: describe(t, "w.bin", data, 128<<10, m)})
	if err != nil {
		t.Fatal(err)
	}
	r := &Runner{Queue: q, Client: &engine.Client{StallTimeout: 200 * time.Millisecond, MaxBackoff: 100 * time.Millisecond}}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res := make(chan error, 1)
	go func() { res <- r.RunJob(ctx, id) }()
	wait := func(what string, ok func(queue.Job) bool) {
		t.Helper()
		testkit.WaitFor(t, what, func() bool {
			select {
			case err := <-res:
				t.Fatalf("the job ended (%v) before %s", err, what)
			default:
			}
			j, err := q.Get(id)
			return err == nil && ok(j)
		})
	}
	wait("progress", func(j queue.Job) bool { done, _, _, _ := j.Progress(); return done > 0 })
	m.Pause()
	wait("next try", func(j queue.Job) bool {
		return j.State == queue.Running && !j.NextTry.IsZero() && j.Error == ""
	})
	m.Resume()
	if err := <-res; err != nil {
		t.Fatal(err)
	}
	j, err := q.Get(id)
	if err != nil {
		t.Fatal(err)
	}
	if j.State != queue.Done || j.Error != "" {
		t.Fatalf("job after the outage: %s, error %q", j.State, j.Error)
	}
}
