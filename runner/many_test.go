package runner

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"braid/engine"
	"braid/engine/metalink"
	"braid/engine/mirrortest"
	"braid/internal/testkit"
	"braid/queue"
	"braid/queue/queuetest"
)

// describeMany is a document of n files of data under distinct names.
func describeMany(t *testing.T, prefix string, n int, data []byte, mirrors ...*mirrortest.Mirror) *metalink.Document {
	t.Helper()
	doc := &metalink.Document{Version: 4}
	for i := range n {
		doc.Files = append(doc.Files, describe(t, fmt.Sprintf("%s%d.bin", prefix, i), data, 64<<10, mirrors...).Files[0])
	}
	return doc
}

// Jobs run side by side up to the runner's Jobs, the files of a job side
// by side too, and all of them within the Client's per-host cap.
func TestRunJobsAndFilesSideBySide(t *testing.T) {
	t.Parallel()
	data := testkit.Data(400<<10 + 9)
	a := mirrortest.New(t, data, mirrortest.Addr("127.0.0.2"), mirrortest.Rate(1<<20))
	b := mirrortest.New(t, data, mirrortest.Addr("127.0.0.3"), mirrortest.Rate(1<<20))
	q := queuetest.Open(t, queue.Open, t.TempDir())
	dest := t.TempDir()
	var jobs []int64
	for i := range 4 {
		id, err := q.Add(queue.NewJob{Source: fmt.Sprintf("job%d.meta4", i), Dest: dest, Doc: describeMany(t, fmt.Sprintf("j%d-", i), 3, data, a, b)})
		if err != nil {
			t.Fatal(err)
		}
		jobs = append(jobs, id)
	}
	r := &Runner{Queue: q, Client: &engine.Client{MaxConnsPerHost: 2}, Jobs: 2}

	// Watch which jobs and files the runner has in hand.
	var maxJobs, maxFiles int
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
			}
			n := 0
			for _, id := range jobs {
				if _, ok := r.Live(id); ok {
					n++
				}
				maxFiles = max(maxFiles, len(r.LiveAll(id)))
			}
			maxJobs = max(maxJobs, n)
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	err := r.Run(ctx)
	close(stop)
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range jobs {
		j, err := q.Get(id)
		if err != nil || j.State != queue.Done {
			t.Fatalf("job %d: %v %v, want done", id, j.State, err)
		}
		for _, f := range j.Files {
			if !f.Verified {
				t.Errorf("job %d file %s not marked verified", id, f.Name)
			}
		}
	}
	for i := range 4 {
		for k := range 3 {
			if got, err := os.ReadFile(filepath.Join(dest, fmt.Sprintf("j%d-%d.bin", i, k))); err != nil || len(got) != len(data) {
				t.Fatalf("file j%d-%d.bin: %v", i, k, err)
			}
		}
	}
	if maxJobs != 2 {
		t.Errorf("at most %d jobs ran at once, want Jobs = 2", maxJobs)
	}
	if maxFiles < 2 {
		t.Errorf("at most %d files of a job ran at once, want several", maxFiles)
	}
	for _, m := range []*mirrortest.Mirror{a, b} {
		if p := m.InFlight().Peak(); p > 2 {
			t.Errorf("mirror %s: %d requests at once, over the per-host cap 2", m.Host(), p)
		}
	}
}

// The order the user gave (a job moved to the top, a paused job resumed
// in its place) holds across closing and opening the queue: the runner
// starts the jobs in that order.
func TestRunOrderKeptAcrossRestart(t *testing.T) {
	t.Parallel()
	data := testkit.Data(100<<10 + 3)
	m := mirrortest.New(t, data, mirrortest.Addr("127.0.0.2"))
	dir, dest := t.TempDir(), t.TempDir()
	q, err := queue.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	var jobs []int64
	for i := range 4 {
		id, err := q.Add(queue.NewJob{Source: fmt.Sprintf("job%d.meta4", i), Dest: dest, Doc: describe(t, fmt.Sprintf("f%d.bin", i), data, 64<<10, m)})
		if err != nil {
			t.Fatal(err)
		}
		jobs = append(jobs, id)
	}
	a, b, c, d := jobs[0], jobs[1], jobs[2], jobs[3]
	if err := q.Move(d, queue.At(0)); err != nil {
		t.Fatal(err)
	}
	if err := q.Pause(b, ""); err != nil {
		t.Fatal(err)
	}
	if err := q.Close(); err != nil {
		t.Fatal(err)
	}

	q = queuetest.Open(t, queue.Open, dir)
	if err := q.Resume(b); err != nil {
		t.Fatal(err)
	}
	rec := &recorder{}
	r := &Runner{Queue: q, Client: &engine.Client{}, Jobs: 1, Observer: rec}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := r.Run(ctx); err != nil {
		t.Fatal(err)
	}
	var started []int64
	for _, f := range rec.runs {
		if !slices.Contains(started, f.Job) {
			started = append(started, f.Job)
		}
	}
	if want := []int64{d, a, b, c}; !slices.Equal(started, want) {
		t.Errorf("jobs started in the order %v, want %v", started, want)
	}
}

// A change of settings while the runner runs reaches its Client: speed
// and connection limits and the number of jobs at once. A limit given
// over the settings (as by a command-line flag) stays until that setting
// changes.
func TestRunnerFollowsSettings(t *testing.T) {
	t.Parallel()
	q := queuetest.Open(t, queue.Open, t.TempDir())
	r := &Runner{Queue: q, Client: &engine.Client{Limit: 5 << 20}}
	if _, err := r.client(); err != nil {
		t.Fatal(err)
	}
	err := q.UpdateSettings(func(s *queue.Settings) {
		s.MaxConns, s.MaxConnsPerHost, s.MaxConnsPerMirror, s.Jobs = 7, 2, 3, 5
	})
	if err != nil {
		t.Fatal(err)
	}
	r.follow()
	want := engine.Limits{MaxConns: 7, MaxConnsPerMirror: 3, MaxConnsPerHost: 2, Limit: 5 << 20}
	if got := r.Client.Limits(); got != want {
		t.Errorf("after a change of connection settings: %+v, want %+v", got, want)
	}
	if n := r.jobsAtOnce(); n != 5 {
		t.Errorf("jobs at once %d, want 5", n)
	}
	if err := q.UpdateSettings(func(s *queue.Settings) { s.SpeedLimit = 1 << 20 }); err != nil {
		t.Fatal(err)
	}
	r.follow()
	if got := r.Client.Limits().Limit; got != 1<<20 {
		t.Errorf("speed limit %d after the setting changed, want %d", got, 1<<20)
	}
	// "Slow" holds over the setting, and a change of the setting while
	// it is on does not undo it.
	if err := q.UpdateSettings(func(st *queue.Settings) { st.Schedule = queue.Schedule{AltSpeed: true, AltLimit: 256 << 10} }); err != nil {
		t.Fatal(err)
	}
	r.follow()
	if err := q.UpdateSettings(func(s *queue.Settings) { s.SpeedLimit = 2 << 20 }); err != nil {
		t.Fatal(err)
	}
	r.follow()
	if got := r.Client.Limits().Limit; got != 256<<10 {
		t.Errorf("speed limit %d with Slow on after the setting changed, want the alternative %d", got, 256<<10)
	}
}

// A journal batch records the pieces of files ending together, and a bad
// record (a piece outside its file) fails alone, costing the others
// nothing.
func TestJournalBatch(t *testing.T) {
	t.Parallel()
	q := queuetest.Open(t, queue.Open, t.TempDir())
	names := []string{"a.bin", "b.bin", "c.bin", "d.bin"}
	id, err := q.Add(queue.NewJob{Source: "batch.meta4", Dest: t.TempDir(), Doc: queuetest.Doc(4<<10, 1<<10, names...)})
	if err != nil {
		t.Fatal(err)
	}
	jb := q.NewJournalBatch()
	errs := make([]error, len(names))
	var wg sync.WaitGroup
	for i, n := range names {
		wg.Add(1)
		go func() {
			defer wg.Done()
			pieces := []int{0, i % 4}
			if n == "c.bin" {
				pieces = append(pieces, 99) // outside the file's 4 pieces
			}
			errs[i] = jb.Journal(id).PiecesDone(n, pieces)
		}()
	}
	wg.Wait()
	for i, n := range names {
		b, _, err := q.Pieces(id, n)
		if err != nil {
			t.Fatal(err)
		}
		if n == "c.bin" {
			if errs[i] == nil || b.Count() != 0 {
				t.Errorf("%s: error %v, %d pieces recorded; want an error and none", n, errs[i], b.Count())
			}
			continue
		}
		if errs[i] != nil || !b.Has(0) || !b.Has(i%4) {
			t.Errorf("%s: error %v, pieces 0 and %d recorded: %v %v", n, errs[i], i%4, b.Has(0), b.Has(i%4))
		}
	}
}

// A speed limit changed in the settings reaches the download the runner
// has running, through its poll: held to the limit first, much faster once
// the limit is lifted. Rates are bytes the mirror served over a window,
// with generous bounds.
//
// Not parallel: it measures throughput and wants the lifted limit
// exceeded, which tests beside it on the same cores could keep it from.
func TestRunSpeedLimitLive(t *testing.T) {
	data := testkit.Data(24 << 20)
	m := mirrortest.New(t, data, mirrortest.Addr("127.0.0.2"))
	q := queuetest.Open(t, queue.Open, t.TempDir())
	const limit = 1 << 20
	if err := q.UpdateSettings(func(s *queue.Settings) { s.SpeedLimit = limit }); err != nil {
		t.Fatal(err)
	}
	if _, err := q.Add(queue.NewJob{Source: "big.meta4", Dest: t.TempDir(), Doc: describe(t, "big.bin", data, 1<<20, m)}); err != nil {
		t.Fatal(err)
	}
	r := &Runner{Queue: q}
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	time.Sleep(1500 * time.Millisecond)
	b0, t0 := m.BytesServed(), time.Now()
	time.Sleep(2 * time.Second)
	if rate := float64(m.BytesServed()-b0) / time.Since(t0).Seconds(); rate > 2.5*limit {
		t.Errorf("%.0f bytes/s under a limit of %d", rate, limit)
	}
	b1, t1 := m.BytesServed(), time.Now()
	if err := q.UpdateSettings(func(s *queue.Settings) { s.SpeedLimit = 0 }); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	rate := float64(m.BytesServed()-b1) / time.Since(t1).Seconds()
	t.Logf("after the limit was lifted: %.1f MiB/s", rate/(1<<20))
	if rate < 4*limit {
		t.Errorf("%.0f bytes/s after the limit was lifted, want well over the old %d", rate, limit)
	}
}
