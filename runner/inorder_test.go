package runner

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"braid/engine"
	"braid/engine/metalink"
	"braid/engine/mirrortest"
	"braid/internal/testkit"
	"braid/queue"
)

// A job the queue keeps in order (queue.InOrder, as the window's
// "Download in order" and braid queue in-order set it) is downloaded in
// order by the runner: from three throttled mirrors, one slow, no piece
// past the next few is done when the first 8 MiB are whole. (The normal
// schedule on these mirrors has piece 18 to 21 done by then:
// engine's TestInOrderCompletesTheFrontFirst.)
func TestJobInOrder(t *testing.T) {
	t.Parallel()
	const firstN, ahead = 8, 6 // pieces of 1 MiB, as in the engine's test
	data := mirrortest.Bytes(48<<20, 36)
	a := mirrortest.New(t, data, mirrortest.Addr("127.0.0.2"), mirrortest.Rate(4<<20))
	b := mirrortest.New(t, data, mirrortest.Addr("127.0.0.3"), mirrortest.Rate(4<<20))
	c := mirrortest.New(t, data, mirrortest.Addr("127.0.0.4"), mirrortest.Rate(2<<20))
	state, dest := t.TempDir(), t.TempDir()
	q, err := queue.Open(state)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { q.Close() })
	id, err := q.Add(queue.NewJob{Source: "o.meta4", Dest: dest, Doc: describe(t, "o.bin", data, 1<<20, a, b, c)})
	if err != nil {
		t.Fatal(err)
	}
	if err := q.SetJob(id, queue.InOrder(true)); err != nil {
		t.Fatal(err)
	}
	r := runner(q)
	start := time.Now()
	res := make(chan error, 1)
	go func() { res <- r.RunJob(context.Background(), id) }()
	testkit.WaitFor(t, "the download to start", func() bool { _, ok := r.Live(id); return ok })
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
	t.Logf("highest piece done when the first %d MiB were whole: %d", firstN, top)
	if err := <-res; err != nil {
		t.Fatal(err)
	}
	if took, ideal := time.Since(start), 48*time.Second/10; took > 3*ideal {
		// The mirrors' throttles no longer set the pace: which piece
		// lands first is then the CPU's doing, not the schedule's.
		t.Skipf("the machine is too busy for this test: %s for what the mirrors send in %s (piece %d done when the first %d MiB were whole)", took.Round(time.Millisecond), ideal, top, firstN)
	}
	if top >= firstN+ahead {
		t.Errorf("piece %d was done before the first %d MiB were whole: the job did not download in order", top, firstN)
	}
}

// topOnceWhole is the highest piece done in snap once its first firstN
// pieces are whole, or -1 before then.
func topOnceWhole(snap *engine.Snapshot, firstN int) int {
	prefix := 0
	for prefix < len(snap.Pieces) && snap.Pieces[prefix] == engine.PieceDone {
		prefix++
	}
	if len(snap.Pieces) == 0 || prefix < firstN {
		return -1
	}
	top := -1
	for i, st := range snap.Pieces {
		if st == engine.PieceDone {
			top = i
		}
	}
	return top
}

// orderObserver notes, from get's progress, the highest piece done when
// the first firstN pieces were first whole.
type orderObserver struct {
	quietObserver
	firstN int
	mu     sync.Mutex
	top    int // -1 until then
}

func (o *orderObserver) Interval() time.Duration { return 10 * time.Millisecond }
func (o *orderObserver) Progress(_ *FileRun, p Progress) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.top < 0 && p.Snapshot != nil {
		o.top = topOnceWhole(p.Snapshot, o.firstN)
	}
}

// braid get --in-order (Get.InOrder) downloads in order as a queue job
// kept in order does, on the same mirrors as TestJobInOrder.
func TestGetInOrder(t *testing.T) {
	t.Parallel()
	const firstN, ahead = 8, 6
	data := mirrortest.Bytes(48<<20, 37)
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
	obs := &orderObserver{firstN: firstN, top: -1}
	g := &Get{Dir: t.TempDir(), State: t.TempDir(), Client: &engine.Client{}, Observer: obs, InOrder: true}
	start := time.Now()
	if !g.Run(context.Background(), []string{src}) {
		t.Fatalf("get failed: %+v", obs.results)
	}
	took, ideal := time.Since(start), 48*time.Second/10
	obs.mu.Lock()
	top := obs.top
	obs.mu.Unlock()
	t.Logf("highest piece done when the first %d MiB were whole: %d", firstN, top)
	if took > 3*ideal {
		t.Skipf("the machine is too busy for this test: %s for what the mirrors send in %s (piece %d done when the first %d MiB were whole)", took.Round(time.Millisecond), ideal, top, firstN)
	}
	if top < 0 || top >= firstN+ahead {
		t.Errorf("piece %d was done when the first %d MiB were first seen whole: get did not download in order", top, firstN)
	}
}
