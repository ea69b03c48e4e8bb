package runner

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"braid/engine/mirrortest"
	"braid/engine/torrent/torrenttest"
	"braid/internal/testkit"
	"braid/queue"
	"braid/queue/queuetest"
)

// Run seeds on the torrents that were seeding when the last runner
// closed (braid queue run stopped, the window closed), over the files
// they have; one whose file is gone does not seed, and is not tried
// again.
func TestRunSeedsOnAfterARestart(t *testing.T) {
	t.Parallel()
	q := queuetest.Open(t, queue.Open, t.TempDir())
	if err := q.SetTorrentSettings(queue.TorrentSettings{SeedRatio: 1000}); err != nil {
		t.Fatal(err)
	}
	var ids []int64
	var dests []string
	for _, name := range []string{"kept.bin", "gone.bin"} {
		src := t.TempDir()
		data := testkit.Data(200 << 10)
		// A single file's web seed is the file's own URL.
		mi := torrenttest.Make(t, src, name, 64<<10, []torrenttest.File{{Data: data}}, mirrortest.New(t, data).URL())
		dest := t.TempDir()
		ids = append(ids, addTorrent(t, q, torrenttest.WriteFile(t, mi, name+".torrent"), dest, nil))
		dests = append(dests, dest)
	}
	r := torrentRunner(t, q)
	if err := r.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := r.Seeding(); !slices.Equal(got, ids) {
		t.Fatalf("seeding %v after the run, want %v", got, ids)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		if s, err := q.Seeded(id); err != nil || !s.Active {
			t.Fatalf("job %d after Close: %+v %v", id, s, err)
		}
	}
	if err := os.Remove(filepath.Join(dests[1], "gone.bin")); err != nil {
		t.Fatal(err)
	}

	r = torrentRunner(t, q)
	defer r.Close()
	if err := r.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := r.Seeding(); !slices.Equal(got, ids[:1]) {
		t.Fatalf("seeding %v after a restart, want only %d (the other's file is gone)", got, ids[0])
	}
	if s, err := q.Seeded(ids[1]); err != nil || s.Active {
		t.Fatalf("the job whose file is gone: %+v %v; want it not tried again", s, err)
	}
	if j, err := q.Get(ids[1]); err != nil || j.State != queue.Done {
		t.Fatalf("the job whose file is gone: %v %v", j.State, err)
	}
}
