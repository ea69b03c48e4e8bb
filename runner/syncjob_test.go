package runner

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"braid/engine"
	"braid/engine/resourcesync/rstest"
	"braid/internal/testkit"
	"braid/queue"
	"braid/queue/queuetest"
)

// TestSyncJob watches a sync in the background as the window does: a file
// in progress shows in Snapshot, Cancel stops it, and a second job
// finishes the folder and records it.
func TestSyncJob(t *testing.T) {
	t.Parallel()
	src := rstest.New(t)
	data := make([]byte, 256<<10)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range data {
		data[i] = byte(r.Uint32())
	}
	src.Put("/big.bin", data)
	src.Put("/small.txt", []byte("small\n"))
	q := queuetest.Open(t, queue.Open, t.TempDir())
	dir := t.TempDir()

	slow := &engine.Client{Limit: 32 << 10}
	j := StartSync(context.Background(), q, src.URL(), dir, SyncOptions{Client: slow, Jobs: 2})
	testkit.WaitFor(t, "big.bin to show progress", func() bool {
		select {
		case <-j.Done():
			t.Fatal("the sync ended before it was canceled")
		default:
		}
		return slices.ContainsFunc(j.Snapshot().Files, func(f engine.Snapshot) bool { return f.Name == "big.bin" && f.Bytes > 0 })
	})
	if _, err := j.Cancel(); !errors.Is(err, context.Canceled) {
		t.Fatalf("Cancel: %v, want context.Canceled", err)
	}

	j = StartSync(context.Background(), q, src.URL(), dir, SyncOptions{Client: &engine.Client{}})
	res, err := j.Wait()
	if err != nil || !res.OK() {
		t.Fatalf("second job: %+v, %v", res, err)
	}
	s := j.Snapshot()
	if len(s.Files) != 0 || s.Counts[SyncFetched]+s.Counts[SyncKept] != 2 || len(s.Events) != 2 {
		t.Fatalf("snapshot after the end: %+v", s)
	}
	got, err := os.ReadFile(filepath.Join(dir, "big.bin"))
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("big.bin: %v", err)
	}
	sets, err := q.SyncSets()
	if err != nil || len(sets) != 1 || sets[0].SyncedAt.IsZero() {
		t.Fatalf("the finished sync is not recorded: %+v, %v", sets, err)
	}
}
