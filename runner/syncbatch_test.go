package runner

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"braid/engine"
	"braid/engine/resourcesync/rstest"
	"braid/queue"
	"braid/queue/queuetest"
)

// A sync records the files it verified in batches, and every one of them
// is recorded however the batches fall. A second sync of the unchanged
// list, compared file by file with the folder, fetches nothing and writes
// no record: the table of synced files is made read-only behind the
// queue's back before it, and any write would fail the sync.
func TestSyncRecordsInBatchesAndRewritesNothing(t *testing.T) {
	t.Parallel()
	const files = syncBatch + 3
	src := rstest.New(t)
	src.NoChangeList = true
	for i := range files {
		src.Put(fmt.Sprintf("/d%d/f%04d.txt", i%7, i), fmt.Appendf(nil, "file %d\n", i))
	}
	state, dir := t.TempDir(), t.TempDir()
	q := queuetest.Open(t, queue.Open, state)
	sync := func(mode string) *SyncResult {
		t.Helper()
		res, err := Sync(context.Background(), q, src.URL(), dir, SyncOptions{Client: &engine.Client{}, Jobs: 8})
		if err != nil || !res.OK() || len(res.Mode) != 1 || res.Mode[0] != mode {
			t.Fatalf("%s sync: %+v, %v", mode, res, err)
		}
		return res
	}
	if res := sync("full"); res.Counts[SyncFetched] != files {
		t.Fatalf("first sync fetched %d of %d: %v", res.Counts[SyncFetched], files, res.Counts)
	}
	rec, err := q.SyncSet(0, src.URL()+"capabilitylist.xml", dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.Files) != files {
		t.Fatalf("recorded %d files, want %d", len(rec.Files), files)
	}

	raw := queuetest.RawDB(t, filepath.Join(state, queue.DBName))
	for _, op := range []string{"INSERT", "UPDATE", "DELETE"} {
		if _, err := raw.Exec(fmt.Sprintf(`CREATE TRIGGER no_%[1]s BEFORE %[1]s ON sync_files BEGIN SELECT RAISE(ABORT, 'sync_files is read-only in this test'); END`, op)); err != nil {
			t.Fatal(err)
		}
	}
	before := src.BytesServed()
	if res := sync("compare"); res.Counts[SyncKept] != files || res.Counts[SyncFetched] != 0 {
		t.Fatalf("second sync: %v, want all %d kept", res.Counts, files)
	}
	if n := src.BytesServed() - before; n != 0 {
		t.Fatalf("the second sync downloaded %d bytes", n)
	}
}
