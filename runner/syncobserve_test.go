package runner

import (
	"context"
	"slices"
	"sync"
	"testing"

	"braid/engine"
	"braid/engine/resourcesync/rstest"
	"braid/internal/testkit"
	"braid/queue"
	"braid/queue/queuetest"
)

// syncRecorder is a recorder that keeps the Notes too.
type syncRecorder struct {
	recorder
	notesMu sync.Mutex
	notes   []Note
}

func (r *syncRecorder) Note(n Note) {
	r.notesMu.Lock()
	defer r.notesMu.Unlock()
	r.notes = append(r.notes, n)
}

// TestSyncTellsAnObserver: a sync is a face like get's: each file it
// downloads is a Start, Progress once an Interval and a Result naming the
// source and the hash that verified it; what it finds without
// downloading (a file already right, one deleted at the source) is a
// NoteSync saying which; and its counts agree with what it told.
func TestSyncTellsAnObserver(t *testing.T) {
	t.Parallel()
	src := rstest.New(t)
	src.Put("/a.bin", testkit.Data(256<<10))
	src.Put("/b.txt", []byte("small\n"))
	q := queuetest.Open(t, queue.Open, t.TempDir())
	dir := t.TempDir()
	sync := func(c *engine.Client) (*SyncResult, *syncRecorder) {
		t.Helper()
		rec := &syncRecorder{}
		res, err := Sync(context.Background(), q, src.URL(), dir, SyncOptions{Client: c, Observer: rec})
		if err != nil || !res.OK() {
			t.Fatalf("sync: %+v, %v", res, err)
		}
		return res, rec
	}

	// About half a second for a.bin: Intervals to tell.
	res, rec := sync(&engine.Client{Limit: 512 << 10})
	slices.Sort(rec.started)
	if !slices.Equal(rec.started, []string{"a.bin", "b.txt"}) || rec.progress == 0 || len(rec.results) != 2 {
		t.Fatalf("first sync told %v started, %d progress calls, %d results", rec.started, rec.progress, len(rec.results))
	}
	for _, r := range rec.results {
		if r.Err != nil || r.Run == nil || r.Run.Name != r.File || r.Source != src.URL() || r.Snapshot == nil || r.Snapshot.VerifiedBy != "sha-256" {
			t.Errorf("result %+v: want fetched, verified by sha-256, from %s", r, src.URL())
		}
		if e, ok := SyncEventOfResult(r); !ok || e.Kind != SyncFetched || e.Verified != "sha-256" || e.Bytes != r.Snapshot.Bytes {
			t.Errorf("its outcome: %+v, %v", e, ok)
		}
	}
	if res.Counts[SyncFetched] != 2 || res.Bytes != 256<<10+6 || len(rec.notes) != 0 {
		t.Errorf("first sync counted %v, %d bytes; notes %+v", res.Counts, res.Bytes, rec.notes)
	}

	// Nothing to fetch, and b.txt gone at the source; the Change Lists
	// start after the deletion, so the sync compares the Resource List
	// with the folder and finds a.bin right.
	src.Delete("/b.txt")
	src.Rotate()
	res, rec = sync(&engine.Client{})
	if len(rec.started) != 0 || len(rec.results) != 0 {
		t.Errorf("second sync started %v, %d results; want none", rec.started, len(rec.results))
	}
	told := map[string]SyncKind{}
	for _, n := range rec.notes {
		if n.Kind != NoteSync || n.Source != src.URL() {
			t.Errorf("note %+v: want a NoteSync from %s", n, src.URL())
		}
		told[n.File] = SyncEventOfNote(n).Kind
	}
	if len(rec.notes) != 2 || told["a.bin"] != SyncKept || told["b.txt"] != SyncGone {
		t.Errorf("second sync told %v; want a.bin kept, b.txt gone", told)
	}
	if res.Mode[0] != "compare" || res.Counts[SyncKept] != 1 || res.Counts[SyncGone] != 1 || res.Bytes != 0 {
		t.Errorf("second sync (%v) counted %v, %d bytes", res.Mode, res.Counts, res.Bytes)
	}
}
