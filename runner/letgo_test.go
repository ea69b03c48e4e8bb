package runner

import (
	"context"
	"errors"
	"testing"
	"time"

	"braid/engine/mirrortest"
	"braid/internal/testkit"
	"braid/queue"
	"braid/queue/queuetest"
)

// A job paused right after its run claimed it, before the run had begun,
// is let go of like one paused mid-download: LetGo waits for that run.
// The run was noted only after the claim, so LetGo answered at once that
// no run held the job; the RPC then showed it paused (no download live)
// while the run went on to start its download, showed it active again,
// refused aria2.unpause ("cannot be unpaused now") and fetched bytes
// after the pause had answered, until the guard's next look at the queue.
func TestLetGoRightAfterClaim(t *testing.T) {
	t.Parallel()
	data := testkit.Data(4 << 20)
	m := mirrortest.New(t, data, mirrortest.Rate(1<<20))
	q := queuetest.Open(t, queue.Open, t.TempDir())
	id, err := q.Add(queue.NewJob{Source: "s.meta4", Dest: t.TempDir(), Doc: describe(t, "s.bin", data, 256<<10, m)})
	if err != nil {
		t.Fatal(err)
	}
	r := runner(q)
	hooked := false
	var gone error
	r.claimed = func(got int64) {
		if got != id {
			t.Errorf("claimed job %d, want %d", got, id)
		}
		hooked = true
		if err := q.Pause(id, ""); err != nil {
			t.Error(err)
		}
		// A LetGo that may not wait: it says whether a run holds the
		// job (ctx's error) or none does (nil).
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		gone = r.LetGo(ctx, id)
	}
	err = r.RunJob(context.Background(), id)
	if !hooked {
		t.Fatal("RunJob did not claim the job")
	}
	if !errors.Is(gone, context.Canceled) {
		t.Errorf("LetGo right after the claim: %v; want it to wait for the run (context.Canceled here)", gone)
	}
	if !errors.Is(err, queue.ErrPaused) {
		t.Errorf("RunJob: %v, want %v", err, queue.ErrPaused)
	}
	if s, err := q.StateOf(id); err != nil || s != queue.Paused {
		t.Errorf("job is %s (%v), want paused", s, err)
	}
	if _, live := r.Live(id); live {
		t.Error("a download of the job is live after its run ended")
	}
}

// Two runs of one job noted at once (one noted before its claim fails
// while the other runs): the one that ends first does not make LetGo
// forget the other.
func TestLetGoWaitsForEveryRunOfAJob(t *testing.T) {
	t.Parallel()
	r := &Runner{}
	endFirst := r.startRun(7)
	endSecond := r.startRun(7)
	endSecond()
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := r.LetGo(ctx, 7); err == nil {
		t.Fatal("LetGo returned while the first run was still under way")
	}
	endFirst()
	if err := r.LetGo(context.Background(), 7); err != nil {
		t.Fatalf("LetGo after both ended: %v", err)
	}
}
