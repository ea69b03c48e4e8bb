package runner

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"braid/engine"
	"braid/engine/metalink"
	"braid/engine/mirrortest"
	"braid/internal/testkit"
	"braid/queue"
)

// cancelObserver ends a get once its file has at least after bytes.
type cancelObserver struct {
	quietObserver
	after  int64
	cancel context.CancelFunc
}

func (o *cancelObserver) Interval() time.Duration { return 20 * time.Millisecond }
func (o *cancelObserver) Progress(_ *FileRun, p Progress) {
	if p.Snapshot != nil && p.Snapshot.Bytes >= o.after {
		o.cancel()
	}
}

// braid get --in-order keeps the order with the job it records: a get
// stopped early (Ctrl-C) leaves a job the queue keeps in order, and a
// queue run that resumes it (as the window or braid queue run do)
// downloads in order, on the throttled mirrors of TestJobInOrder. A get
// without the flag leaves its job as any other.
func TestGetInOrderKeptForTheResume(t *testing.T) {
	t.Parallel()
	const firstN, ahead = 8, 6 // pieces of 1 MiB, as in TestJobInOrder
	data := mirrortest.Bytes(48<<20, 38)
	a := mirrortest.New(t, data, mirrortest.Addr("127.0.0.2"), mirrortest.Rate(4<<20))
	b := mirrortest.New(t, data, mirrortest.Addr("127.0.0.3"), mirrortest.Rate(4<<20))
	c := mirrortest.New(t, data, mirrortest.Addr("127.0.0.4"), mirrortest.Rate(2<<20))
	src := filepath.Join(t.TempDir(), "o.meta4")
	var doc bytes.Buffer
	if err := metalink.Write(&doc, describe(t, "o.bin", data, 1<<20, a, b, c)); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(src, doc.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	// stopped runs get on src into a folder of its own until 2 MiB are
	// there, and returns its state folder and the job it left.
	stopped := func(inOrder bool) (string, string, int64) {
		state, dest := t.TempDir(), t.TempDir()
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		obs := &cancelObserver{after: 2 << 20, cancel: cancel}
		g := &Get{Dir: dest, State: state, Client: &engine.Client{}, Observer: obs, InOrder: inOrder}
		if g.Run(ctx, []string{src}) {
			t.Fatal("the get was not stopped")
		}
		q, err := queue.Open(state)
		if err != nil {
			t.Fatal(err)
		}
		defer q.Close()
		id, known, err := q.JobFor(src, dest)
		if err != nil || !known {
			t.Fatalf("the stopped get left no job (%v)", err)
		}
		return state, dest, id
	}

	state, _, id := stopped(false)
	if on := inOrderIn(t, state, id); on {
		t.Fatal("a get without --in-order left a job in order")
	}

	state, _, id = stopped(true)
	if on := inOrderIn(t, state, id); !on {
		t.Fatal("get --in-order left a job the queue does not keep in order: a resume would not be in order")
	}
	q, err := queue.Open(state)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { q.Close() })
	if err := q.Resume(id); err != nil { // as the window's Resume
		t.Fatal(err)
	}
	r := runner(q)
	start := time.Now()
	res := make(chan error, 1)
	go func() { res <- r.RunJob(context.Background(), id) }()
	testkit.WaitFor(t, "the resumed download to start", func() bool {
		select {
		case err := <-res:
			t.Fatalf("the resumed job ended before it ran: %v", err)
		default:
		}
		_, ok := r.Live(id)
		return ok
	})
	dl, _ := r.Live(id)
	top := -1
	var snap engine.Snapshot
	for end := time.Now().Add(time.Minute); top < 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatal("the first 8 MiB were not whole within a minute")
		}
		dl.SnapshotInto(&snap)
		top = topOnceWhole(&snap, firstN)
	}
	t.Logf("resumed: highest piece done when the first %d MiB were whole: %d", firstN, top)
	if err := <-res; err != nil {
		t.Fatal(err)
	}
	if took, ideal := time.Since(start), 46*time.Second/10; took > 3*ideal {
		t.Skipf("the machine is too busy for this test: %s for what the mirrors send in %s (piece %d done when the first %d MiB were whole)", took.Round(time.Millisecond), ideal, top, firstN)
	}
	if top >= firstN+ahead {
		t.Errorf("piece %d was done before the first %d MiB were whole: the resumed job did not download in order", top, firstN)
	}
}

// inOrderIn reports whether the queue in state keeps job id in order.
func inOrderIn(t *testing.T, state string, id int64) bool {
	t.Helper()
	q, err := queue.Open(state)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	on, err := q.InOrder(id)
	if err != nil {
		t.Fatal(err)
	}
	return on
}
