package runner

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"braid/engine/metalink"
	"braid/engine/mirrortest"
	"braid/engine/piece"
	"braid/internal/testkit"
	"braid/queue"
	"braid/queue/queuetest"
)

// A plain link with no published hash, paused by the user inside its
// pieces, resumes from the bytes it wrote: each piece in flight is asked
// for from where its bytes end, and the mirrors serve the file once.
func TestPauseResumesInsidePieces(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		stop    func(q *queue.Queue, id int64, cancel context.CancelFunc) error
		wantErr error
	}{
		{"paused by the user", func(q *queue.Queue, id int64, _ context.CancelFunc) error { return q.Pause(id, "") }, queue.ErrPaused},
		// Ctrl-C: the job is paused as well.
		{"interrupted", func(_ *queue.Queue, _ int64, cancel context.CancelFunc) error { cancel(); return nil }, context.Canceled},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := testkit.Data(10 << 20)
			var (
				ms       []*mirrortest.Mirror
				q        *queue.Queue
				dest     string
				id       int64
				held     []int64
				inFlight int
			)
			plan := piece.PlanFor(metalink.File{Name: "plain.bin", Size: int64(len(data))})
			// The pause must come while a piece is in flight, which a
			// loaded machine's scheduling can miss (every worker between
			// two pieces): the stop is then tried again on a fresh
			// download, and only a download that never pauses inside a
			// piece fails the test.
			for attempt := 1; ; attempt++ {
				ms, q, dest, id, held, inFlight = pauseInsidePieces(t, data, plan, tc.stop, tc.wantErr)
				if inFlight > 0 {
					break
				}
				if attempt == 3 {
					t.Fatalf("no piece was in flight at the pause in %d tries: the test shows nothing (bytes held from each piece's start: %v; %d served)", attempt, held, served(ms...))
				}
				t.Logf("try %d: no piece was in flight at the pause (bytes held from each piece's start: %v; %d served); trying again", attempt, held, served(ms...))
			}
			// The paused job shows every byte it keeps (a byte past
			// those written may match the file by chance).
			var heldAll int64
			for _, h := range held {
				heldAll += h
			}
			j, err := q.Get(id)
			if err != nil {
				t.Fatal(err)
			}
			if _, _, shown, _ := j.Progress(); shown > heldAll || shown < heldAll-16*int64(inFlight) {
				t.Errorf("the paused job shows %d bytes; it keeps %d", shown, heldAll)
			}
			first := []int{len(ms[0].Ranges()), len(ms[1].Ranges())}
			atPause := served(ms...)

			if j, err := q.Get(id); err != nil || j.State != queue.Paused {
				t.Fatalf("job after the stop: %v, %v; want paused", j.State, err)
			}
			if err := q.Resume(id); err != nil {
				t.Fatal(err)
			}
			if err := runner(q).RunJob(context.Background(), id); err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(filepath.Join(dest, "plain.bin"))
			if err != nil || !bytes.Equal(got, data) {
				t.Fatalf("file after the resume: %d bytes, %v", len(got), err)
			}
			var asked []int64
			for i, m := range ms {
				for _, r := range m.Ranges()[first[i]:] {
					if r.Method == http.MethodGet && r.N > 0 {
						asked = append(asked, r.Off)
					}
				}
			}
			for i, h := range held {
				off, n := plan.Bounds(i)
				if h == 0 || h == n {
					continue
				}
				found := false
				for _, a := range asked {
					// Within one read of where its bytes end.
					if a > off && a <= off+h && a >= off+h-256<<10 {
						found = true
					}
				}
				if !found {
					t.Errorf("piece %d held %d bytes at the pause; the resume asked from %v", i, h, asked)
				}
			}
			total := served(ms...)
			t.Logf("paused with %d bytes served, %d pieces in flight; %d served in all for %d (%d again); resume asked from %v",
				atPause, inFlight, total, len(data), total-int64(len(data)), asked)
			if limit := int64(len(data)) + 256<<10; total > limit {
				t.Fatalf("served %d bytes for a file of %d; want at most %d", total, len(data), limit)
			}
		})
	}
}

// pauseInsidePieces downloads data from two slow mirrors, stops the job
// with stop at a quarter, and returns what the paused .part holds: the
// bytes held from each piece's start, and how many pieces are partly
// held (in flight at the pause).
func pauseInsidePieces(t *testing.T, data []byte, plan piece.Plan, stop func(*queue.Queue, int64, context.CancelFunc) error, wantErr error) (ms []*mirrortest.Mirror, q *queue.Queue, dest string, id int64, held []int64, inFlight int) {
	t.Helper()
	// The runner notices a pause on its next poll of the queue
	// (pollInterval, a second), later on a loaded machine; the bytes
	// that go on flowing meanwhile must not finish the file, or no
	// piece is left in flight. At 800 KiB/s a mirror, pausing at a
	// quarter leaves the download more than 4 s. A mirror takes 1.28 s
	// for a 1 MiB piece, not the poll's whole second: at 1 MiB/s the
	// polls fell on the pieces' ends, and a loaded machine paused
	// between pieces three times running.
	for i := range 2 {
		ms = append(ms, mirrortest.New(t, data, mirrortest.Rate(800<<10), mirrortest.Addr([]string{"127.0.0.2", "127.0.0.3"}[i])))
	}
	f := metalink.File{Name: "plain.bin", Size: int64(len(data))}
	for i, m := range ms {
		f.URLs = append(f.URLs, metalink.URL{URL: m.URL(), Priority: i + 1})
	}
	q = queuetest.Open(t, queue.Open, t.TempDir()) // a real SQLite file
	dest = t.TempDir()
	id, err := q.Add(queue.NewJob{Source: "plain.meta4", Dest: dest, Doc: &metalink.Document{Version: 4, Files: []metalink.File{f}}})
	if err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	res := make(chan error, 1)
	go func() { res <- runner(q).RunJob(ctx, id) }()
	if !testkit.Eventually(testkit.Patience, func() bool { return served(ms...) >= 5<<19 }) {
		t.Fatalf("the mirrors served %d bytes in %s", served(ms...), testkit.Patience)
	}
	if err := stop(q, id, cancel); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-res:
		if !errors.Is(err, wantErr) {
			t.Fatalf("RunJob: %v, want %v", err, wantErr)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the runner did not stop within 10 s")
	}
	part, err := os.ReadFile(filepath.Join(dest, "plain.bin.part"))
	if err != nil {
		t.Fatal(err)
	}
	held = make([]int64, plan.Count())
	for i := range held {
		off, n := plan.Bounds(i)
		for held[i] < n && part[off+held[i]] == data[off+held[i]] {
			held[i]++
		}
		if held[i] > 0 && held[i] < n {
			inFlight++
		}
	}
	return ms, q, dest, id, held, inFlight
}
