package bridge

import (
	"testing"
	"time"

	"braid/engine/mirrortest"
	"braid/internal/testkit"
	"braid/queue"
	"braid/queue/queuetest"
	"braid/ui"
)

// The window's "Speed limit…" on a running download: the runner's limit
// for the job changes at once, the row shows it, the download goes on
// (the same engine download: nothing restarted), and after Braid closes
// and opens again the job still has it. A change made elsewhere shows
// too.
func TestJobLimitFromTheWindow(t *testing.T) {
	t.Parallel()
	data := payload(256 * pieceLen)
	m := mirrortest.New(t, data, mirrortest.Rate(1<<20))
	f := describeData(t, "limited.bin", data, m.URL())
	state := t.TempDir()
	q, err := queue.Open(state)
	if err != nil {
		t.Fatal(err)
	}
	b := New(q, nil)
	id := startOne(t, b, "limited.meta4", f, t.TempDir())
	testkit.WaitFor(t, "the download to start", func() bool { return jobByID(t, b, id).Done > 0 })
	dl, ok := b.runner.Live(int64(id))
	if !ok {
		t.Fatal("no live download for the job")
	}
	if err := b.SetJobLimit(id, 256<<10); err != nil {
		t.Fatal(err)
	}
	if got, running := b.runner.JobLimit(int64(id)); !running || got != 256<<10 {
		t.Fatalf("the runner's limit for the job is %d (running %v), want %d at once", got, running, 256<<10)
	}
	var row ui.Job
	for _, j := range b.Active() {
		if j.ID == id {
			row = j
		}
	}
	if row.Limit != 256<<10 || jobByID(t, b, id).Limit != 256<<10 {
		t.Errorf("the row's limit: active %d, listed %d, want %d", row.Limit, jobByID(t, b, id).Limit, 256<<10)
	}
	time.Sleep(1500 * time.Millisecond) // past a poll of the runner
	if now, ok := b.runner.Live(int64(id)); !ok || now != dl {
		t.Fatal("setting the limit restarted the download")
	}
	if st := jobByID(t, b, id).State; st != ui.Running {
		t.Fatalf("after the limit was set the job is %v", st)
	}
	// Changed by another braid command (straight in the queue): the row
	// follows the run, which follows the queue.
	if err := q.SetJob(int64(id), queue.Limit(128<<10)); err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, "the row to show the limit set elsewhere", func() bool {
		for _, j := range b.Active() {
			if j.ID == id {
				return j.Limit == 128<<10
			}
		}
		return false
	})
	if err := b.SetJobLimit(-1, 1); err == nil {
		t.Error("a sync folder took a speed limit")
	}

	b.Close()
	if err := q.Close(); err != nil {
		t.Fatal(err)
	}
	q = queuetest.Open(t, queue.Open, state)
	b = newBackend(t, q)
	if got := jobByID(t, b, id).Limit; got != 128<<10 {
		t.Errorf("after a restart the job's limit is %d, want %d", got, 128<<10)
	}
}
