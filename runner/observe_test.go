package runner

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"braid/engine"
	"braid/engine/mirrortest"
	"braid/engine/signature"
	"braid/engine/torrent/torrenttest"
	"braid/internal/testkit"
	"braid/queue"
	"braid/queue/queuetest"
)

// recorder is an Observer that keeps what it is told.
type recorder struct {
	mu       sync.Mutex
	started  []string
	runs     []*FileRun
	progress int
	swarm    int // Progress calls with a torrent's snapshot
	results  []Result
}

func (r *recorder) Interval() time.Duration { return 50 * time.Millisecond }

func (r *recorder) Start(f *FileRun) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.started = append(r.started, f.Name)
	r.runs = append(r.runs, f)
}

func (r *recorder) Progress(_ *FileRun, p Progress) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.progress++
	if p.Torrent != nil {
		r.swarm++
	}
}

// told returns how many Progress calls with a torrent's snapshot and
// Results it has had.
func (r *recorder) told() (swarm, results int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.swarm, len(r.results)
}

func (r *recorder) Note(Note)                             {}
func (r *recorder) Signature(*FileRun, signature.Outcome) {}
func (r *recorder) Check(CheckEvent)                      {}

func (r *recorder) Result(res Result) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.results = append(r.results, res)
}

// TestRunTellsAnObserver: a queue run tells an Observer of each file as
// get's does (Start, Progress, Result with the file's error), and under
// RequireHash a file no published hash checked fails its job with
// ErrNotVerified while a hashed one is done.
func TestRunTellsAnObserver(t *testing.T) {
	t.Parallel()
	data := testkit.Data(3<<20 + 5)
	m := mirrortest.New(t, data, mirrortest.Rate(4<<20)) // slow enough for progress
	q := queuetest.Open(t, queue.Open, t.TempDir())
	dest := t.TempDir()
	hashed, err := q.Add(queue.NewJob{Source: "h.meta4", Dest: dest, Doc: describe(t, "h.bin", data, 256<<10, m)})
	if err != nil {
		t.Fatal(err)
	}
	plain := describe(t, "p.bin", data, 0, m)
	plain.Files[0].Hashes, plain.Files[0].Pieces = nil, nil
	unhashed, err := q.Add(queue.NewJob{Source: "p.meta4", Dest: dest, Doc: plain})
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{}
	r := runner(q)
	r.Observer, r.RequireHash = rec, true
	if err := r.Run(context.Background()); !errors.Is(err, ErrNotVerified) {
		t.Fatalf("run: %v; want the unhashed file not verified", err)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	slices.Sort(rec.started)
	if !slices.Equal(rec.started, []string{"h.bin", "p.bin"}) || len(rec.results) != 2 || rec.progress == 0 {
		t.Fatalf("started %v, %d results, %d progress calls", rec.started, len(rec.results), rec.progress)
	}
	for _, res := range rec.results {
		if res.Run == nil || res.Snapshot == nil || res.Run.Name != res.File {
			t.Fatalf("result %+v: want its run and snapshot", res)
		}
		switch res.File {
		case "h.bin":
			if res.Err != nil || res.Snapshot.Outcome() != engine.OutcomeVerified || res.Source != "h.meta4" {
				t.Errorf("h.bin: %v, %v, source %q", res.Err, res.Snapshot.Outcome(), res.Source)
			}
		case "p.bin":
			if !errors.Is(res.Err, ErrNotVerified) {
				t.Errorf("p.bin: %v; want ErrNotVerified", res.Err)
			}
		}
	}
	if s, _ := q.StateOf(hashed); s != queue.Done {
		t.Errorf("hashed job: %s; want done", s)
	}
	if s, _ := q.StateOf(unhashed); s != queue.Failed {
		t.Errorf("unhashed job: %s; want failed", s)
	}
}

// TestRunTellsAnObserverOfATorrent: a torrent job is one FileRun to the
// Observer (Torrent set, its job's ID): Start, Progress with the swarm's
// snapshot once an Interval, and a Result both when its run is stopped
// (the context's error, the bytes so far) and when it completes (done).
func TestRunTellsAnObserverOfATorrent(t *testing.T) {
	t.Parallel()
	data := testkit.Data(2 << 20)
	m := mirrortest.New(t, data, mirrortest.Rate(512<<10)) // about 4 s: ticks to see
	mi := torrenttest.Make(t, t.TempDir(), "o.bin", 64<<10, []torrenttest.File{{Data: data}}, m.URL())
	tf := torrenttest.WriteFile(t, mi, "o.bin.torrent")
	q := noSeedQueue(t)
	id := addTorrent(t, q, tf, t.TempDir(), nil)
	rec := &recorder{}
	r := torrentRunner(t, q)
	r.Observer = rec

	// Stopped once the observer heard of its swarm.
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan error, 1)
	go func() { stopped <- r.RunJob(ctx, id) }()
	testkit.WaitFor(t, "a Progress with the torrent's snapshot", func() bool {
		n, _ := rec.told()
		return n > 0
	})
	cancel()
	if err := <-stopped; !errors.Is(err, context.Canceled) {
		t.Fatalf("stopped run: %v; want context.Canceled", err)
	}
	rec.mu.Lock()
	if len(rec.runs) != 1 || len(rec.results) != 1 {
		t.Fatalf("after the stop: %d starts, %d results; want 1 and 1", len(rec.runs), len(rec.results))
	}
	run, res := rec.runs[0], rec.results[0]
	rec.mu.Unlock()
	if !run.Torrent || run.Job != id || run.Name != "o.bin" {
		t.Errorf("its FileRun: %+v; want a torrent of job %d named o.bin", run, id)
	}
	if res.Run != run || !errors.Is(res.Err, context.Canceled) || res.Torrent == nil || res.Snapshot == nil ||
		res.Snapshot.State == engine.StateDone || res.Snapshot.Bytes >= int64(len(data)) {
		t.Fatalf("the stopped run's result: %+v; want its run, context.Canceled and a snapshot short of done", res)
	}

	// Run again to the end.
	if err := q.Resume(id); err != nil {
		t.Fatal(err)
	}
	if err := r.RunJob(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.runs) != 2 || len(rec.results) != 2 {
		t.Fatalf("after both runs: %d starts, %d results; want 2 and 2", len(rec.runs), len(rec.results))
	}
	res = rec.results[1]
	if res.Run != rec.runs[1] || res.Err != nil || res.Torrent == nil || res.Snapshot.State != engine.StateDone ||
		res.Snapshot.Bytes != int64(len(data)) || res.Source != tf || res.File != "o.bin" {
		t.Fatalf("the completed run's result: %+v (snapshot %+v); want done, all %d bytes", res, res.Snapshot, len(data))
	}
}
