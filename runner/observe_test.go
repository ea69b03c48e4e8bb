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
	"braid/internal/testkit"
	"braid/queue"
	"braid/queue/queuetest"
)

// recorder is an Observer that keeps what it is told.
type recorder struct {
	mu       sync.Mutex
	started  []string
	progress int
	results  []Result
}

func (r *recorder) Interval() time.Duration { return 50 * time.Millisecond }

func (r *recorder) Start(f *FileRun) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.started = append(r.started, f.Name)
}

func (r *recorder) Progress(*FileRun, Progress) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.progress++
}

func (r *recorder) Note(Note)                             {}
func (r *recorder) Signature(*FileRun, signature.Outcome) {}

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
	hashed, err := q.Add("h.meta4", dest, describe(t, "h.bin", data, 256<<10, m), nil)
	if err != nil {
		t.Fatal(err)
	}
	plain := describe(t, "p.bin", data, 0, m)
	plain.Files[0].Hashes, plain.Files[0].Pieces = nil, nil
	unhashed, err := q.Add("p.meta4", dest, plain, nil)
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
