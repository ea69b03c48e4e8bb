package queue

import (
	"context"
	"testing"

	"braid/engine/metalink"
	"braid/engine/torrent"
	"braid/engine/torrent/torrenttest"
	"braid/queue/queuetest"
)

// A torrent job's map is the torrent's own: its pieces per file, a piece
// two files share counted once, done as recorded in its folder. The job
// says it has a torrent once one is stored (Job.Torrent).
func TestTorrentMapCountsTheTorrentsPieces(t *testing.T) {
	t.Parallel()
	const pl = 64 << 10
	// a.bin ends inside piece 2, which b.bin starts in.
	files := []torrenttest.File{{Path: "a.bin", Data: make([]byte, 2*pl+100)}, {Path: "b.bin", Data: make([]byte, pl)}}
	mi := torrenttest.Make(t, t.TempDir(), "pack", pl, files)
	tf := torrenttest.WriteFile(t, mi, "pack.torrent")
	spec, err := torrent.Resolve(context.Background(), tf, nil)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := torrent.Document(spec, tf)
	if err != nil {
		t.Fatal(err)
	}
	q := queuetest.Open(t, Open, t.TempDir())
	dest := t.TempDir()
	id, err := q.Add(NewJob{Source: tf, Dest: dest, Doc: doc})
	if err != nil {
		t.Fatal(err)
	}
	j, err := q.Get(id)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok, err := q.TorrentMap(j); ok || err != nil {
		t.Fatalf("a map before the torrent is stored: %v, %v", ok, err)
	}
	if j.Torrent {
		t.Error("a job with no torrent stored says it has one")
	}
	if err := q.SetTorrentSpec(id, spec); err != nil {
		t.Fatal(err)
	}
	// Get and List say the job has a torrent now.
	if j, err := q.Get(id); err != nil || !j.Torrent {
		t.Errorf("Get after the torrent is stored: Torrent %v, %v", j.Torrent, err)
	}
	if l, err := q.List(); err != nil || len(l) != 1 || !l[0].Torrent {
		t.Errorf("List after the torrent is stored: %+v, %v", l, err)
	}
	tp, err := q.TorrentPieces(dest)
	if err != nil {
		t.Fatal(err)
	}
	if err := tp.Set(spec.InfoHash.HexString(), []int{0, 2}, true); err != nil {
		t.Fatal(err)
	}
	m, ok, err := q.TorrentMap(j)
	if err != nil || !ok {
		t.Fatalf("TorrentMap: %v, %v", ok, err)
	}
	for _, tc := range []struct {
		names       []string
		done, total int
	}{
		{[]string{"pack/a.bin"}, 2, 3},
		{[]string{"pack/b.bin"}, 1, 2},
		{[]string{"pack/a.bin", "pack/b.bin"}, 2, 4},
		{[]string{"pack/none.bin"}, 0, 0},
	} {
		if done, total := m.Count(tc.names); done != tc.done || total != tc.total {
			t.Errorf("Count(%q) = %d of %d, want %d of %d", tc.names, done, total, tc.done, tc.total)
		}
	}

	// A metalink job has no torrent map.
	mj, err := q.Add(NewJob{Source: "m.meta4", Dest: dest, Doc: &metalink.Document{Version: 4, Files: []metalink.File{{Name: "m.bin", Size: 10}}}})
	if err != nil {
		t.Fatal(err)
	}
	j, _ = q.Get(mj)
	if _, ok, err := q.TorrentMap(j); ok || err != nil {
		t.Errorf("a metalink job's torrent map: %v, %v", ok, err)
	}
}
