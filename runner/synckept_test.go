package runner

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"braid/engine"
	"braid/engine/resourcesync/rstest"
	"braid/queue"
	"braid/queue/queuetest"
)

// A file the source deleted, kept by a sync without --delete, is deleted
// by a later --delete however the two syncs compared: through Change
// Lists (the deletion earlier than the newest change) or, when the Change
// Lists no longer covered the time since the last sync, by comparing the
// Resource List.
func TestSyncDeleteFindsWhatAnEarlierSyncKept(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		rotate bool   // the source's Change Lists start after the deletion
		mode   string // how the sync that keeps the file compares
	}{
		{"changes", false, "changes"},
		{"compare", true, "compare"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := rstest.New(t)
			src.Put("/keep.txt", []byte("stays\n"))
			src.Put("/gone.txt", []byte("deleted at the source\n"))
			q := queuetest.Open(t, queue.Open, t.TempDir())
			dir := t.TempDir()
			sync := func(del bool) *SyncResult {
				t.Helper()
				res, err := Sync(context.Background(), q, src.URL(), dir, SyncOptions{Client: &engine.Client{}, Delete: del})
				if err != nil || !res.OK() {
					t.Fatalf("sync: %+v, %v", res, err)
				}
				return res
			}
			sync(false)
			src.Delete("/gone.txt")
			// A later change, so the sync's newest change is not the
			// deletion.
			time.Sleep(5 * time.Millisecond)
			src.Put("/new.txt", []byte("new\n"))
			if tc.rotate {
				src.Rotate()
			}
			if res := sync(false); res.Mode[0] != tc.mode || res.Counts[SyncGone] != 1 || res.Counts[SyncFetched] != 1 {
				t.Fatalf("the sync that keeps gone.txt: mode %v, %v", res.Mode, res.Counts)
			}
			if _, err := os.Stat(filepath.Join(dir, "gone.txt")); err != nil {
				t.Fatalf("a sync without --delete removed gone.txt: %v", err)
			}
			if res := sync(true); res.Counts[SyncDeleted] != 1 {
				t.Fatalf("--delete: mode %v, %v", res.Mode, res.Counts)
			}
			if _, err := os.Stat(filepath.Join(dir, "gone.txt")); !errors.Is(err, fs.ErrNotExist) {
				t.Fatalf("--delete left gone.txt: %v", err)
			}
			if _, err := os.Stat(filepath.Join(dir, "new.txt")); err != nil {
				t.Fatal(err)
			}
		})
	}
}
