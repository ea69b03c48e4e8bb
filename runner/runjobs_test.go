package runner

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"braid/engine/mirrortest"
	"braid/internal/testkit"
	"braid/queue"
	"braid/queue/queuetest"
)

// RunJobs runs the jobs a face added or found, from whatever state they
// rest in: added paused (so no other runner takes them first), failed, or
// done with a file gone since, which is fetched again. A job another run
// holds is refused with a sentence, and the others still run.
func TestRunJobs(t *testing.T) {
	t.Parallel()
	data := testkit.Data(300 << 10)
	m := mirrortest.New(t, data, mirrortest.Path("/pub/a.bin"))
	q := queuetest.Open(t, queue.Open, t.TempDir())
	dest := t.TempDir()
	add := func() int64 {
		t.Helper()
		added, err := Add(context.Background(), q, m.URL(), AddOptions{Dir: t.TempDir(), Paused: true})
		if err != nil {
			t.Fatal(err)
		}
		return added.ID
	}
	paused, failed := add(), add()
	if err := q.Fail(failed, errors.New("the mirror went away")); err != nil {
		t.Fatal(err)
	}
	added, err := Add(context.Background(), q, m.URL(), AddOptions{Dir: dest, Paused: true})
	if err != nil {
		t.Fatal(err)
	}
	done := added.ID
	r := &Runner{Queue: q}
	t.Cleanup(func() { r.Close() })
	if err := r.RunJobs(context.Background(), sent(paused, failed, done)); err != nil {
		t.Fatal(err)
	}
	for _, id := range []int64{paused, failed, done} {
		if j := mustJob(t, q, id); j.State != queue.Done {
			t.Errorf("job %d is %s after RunJobs, want done", id, j.State)
		}
	}

	// Done, its file deleted since: RunJobs fetches it again.
	file := filepath.Join(dest, "a.bin")
	if err := os.Remove(file); err != nil {
		t.Fatal(err)
	}
	served := m.BytesServed()
	if err := r.RunJobs(context.Background(), sent(done)); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(file); err != nil || !bytes.Equal(b, data) {
		t.Fatalf("the file fetched again: %v", err)
	}
	if m.BytesServed() == served {
		t.Error("nothing was fetched for the deleted file")
	}

	// Another run holds a job: it is refused, the other job runs.
	held, other := add(), add()
	if ok, err := q.Claim(held, queue.Paused); !ok || err != nil {
		t.Fatalf("claim: %v, %v", ok, err)
	}
	err = r.RunJobs(context.Background(), sent(held, other))
	if err == nil || !errors.Is(err, queue.ErrState) || !strings.Contains(err.Error(), "another run has it") {
		t.Errorf("RunJobs of a job another run holds: %v", err)
	}
	if j := mustJob(t, q, other); j.State != queue.Done {
		t.Errorf("the job beside it is %s, want done", j.State)
	}
	if j := mustJob(t, q, held); j.State != queue.Running {
		t.Errorf("the held job is %s: RunJobs must leave it to its run", j.State)
	}
}

// sent is a closed channel that holds ids, for RunJobs.
func sent(ids ...int64) <-chan int64 {
	ch := make(chan int64, len(ids))
	for _, id := range ids {
		ch <- id
	}
	close(ch)
	return ch
}

// A face that does not own the queue (braid get while the window is
// open) runs the jobs it added all the same, the link it reads again
// included: the job is its run's, whoever owns the queue.
func TestRunJobsBesideTheOwner(t *testing.T) {
	t.Parallel()
	data := testkit.Data(100 << 10)
	m := mirrortest.New(t, data, mirrortest.Path("/pub/late.bin"))
	state := t.TempDir()
	owner := queuetest.Open(t, queue.Open, state)
	if !owner.Owner() {
		t.Fatal("the first open does not own the queue")
	}
	q := queuetest.Open(t, queue.Open, state)
	doc, ok := UnreachedDoc(m.URL())
	if !ok {
		t.Fatal("no placeholder for the link")
	}
	// Added while its server could not be reached: read again as it runs.
	added, err := Add(context.Background(), q, m.URL(), AddOptions{Dir: t.TempDir(), Doc: doc, Paused: true})
	if err != nil {
		t.Fatal(err)
	}
	r := &Runner{Queue: q}
	t.Cleanup(func() { r.Close() })
	if err := r.RunJobs(context.Background(), sent(added.ID)); err != nil {
		t.Fatal(err)
	}
	if j := mustJob(t, q, added.ID); j.State != queue.Done || len(j.Files) != 1 || j.Files[0].Size != int64(len(data)) {
		t.Errorf("the job run beside the queue's owner: %s, files %+v", j.State, j.Files)
	}
}
