package runner

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"braid/engine/torrent"
	"braid/engine/torrent/torrenttest"
	"braid/internal/testkit"
	"braid/queue"
)

// A running torrent job, downloading slowly from a real seeder: its
// peers name the seeder by address; skipping one of its two files takes
// effect at once and is kept in the queue, and the job ends done with the
// other file verified and the skipped one not fetched.
func TestRunnerTorrentPeersAndSkip(t *testing.T) {
	t.Parallel()
	src := t.TempDir()
	const size = 1 << 20 // whole pieces: the files share none
	a, b := testkit.Data(size), testkit.Data(size+64<<10)
	mi := torrenttest.Make(t, src, "two", 64<<10, []torrenttest.File{{Path: "a.bin", Data: a}, {Path: "b.bin", Data: b}})
	seeder := torrenttest.Seed(t, src, mi)
	tf := torrenttest.WriteFile(t, mi, "two.torrent")

	q := noSeedQueue(t)
	dest := t.TempDir()
	id := addTorrent(t, q, tf, dest, nil)
	spec, err := torrent.Resolve(context.Background(), tf, nil)
	if err != nil {
		t.Fatal(err)
	}
	spec.Peers = []string{seeder}
	if err := q.SetTorrentSpec(id, spec); err != nil {
		t.Fatal(err)
	}
	c := torrent.NewClient(torrent.Config{ListenHost: "127.0.0.1", Logger: slog.New(slog.DiscardHandler), DownloadLimit: 64 << 10})
	t.Cleanup(func() { c.Close() })
	r := runner(q)
	r.Torrent = c
	if _, ok := r.TorrentPeers(id); ok {
		t.Fatal("peers of a job that does not run")
	}
	errc := make(chan error, 1)
	go func() { errc <- r.RunJob(context.Background(), id) }()

	var peers []torrent.Peer
	if !testkit.Eventually(testkit.Patience, func() bool {
		var ok bool
		peers, ok = r.TorrentPeers(id)
		return ok && len(peers) == 1 && peers[0].Downloaded > 0
	}) {
		t.Fatalf("no peer sending in %s: %+v", testkit.Patience, peers)
	}
	if peers[0].Addr != seeder || !peers[0].Seeder {
		t.Errorf("peer %s (seeder %v), the seeder is %s", peers[0].Addr, peers[0].Seeder, seeder)
	}
	if trs, ok := r.TorrentTrackers(id); !ok || len(trs) != 0 {
		t.Errorf("trackers of a torrent without any: %v %v", trs, ok)
	}

	if err := r.SetTorrentFile(id, "two/b.bin", false); err != nil {
		t.Fatal(err)
	}
	if err := r.SetTorrentFile(id, "two/a.bin", false); !errors.Is(err, queue.ErrLastFile) {
		t.Fatalf("skipping the last file: %v", err)
	}
	if j := mustJob(t, q, id); !slices.ContainsFunc(j.Files, func(f queue.File) bool { return f.Name == "two/b.bin" && !f.Selected }) {
		t.Fatal("the queue still selects the skipped file")
	}
	c.SetLimits(0, 0)
	select {
	case err := <-errc:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(2 * time.Minute):
		t.Fatal("the job did not end without the skipped file")
	}
	j := mustJob(t, q, id)
	if j.State != queue.Done {
		t.Fatalf("job %s: %s", j.State, j.Error)
	}
	for _, f := range j.Files {
		if f.Verified != (f.Name == "two/a.bin") {
			t.Errorf("%s verified %v", f.Name, f.Verified)
		}
	}
	got, err := os.ReadFile(filepath.Join(dest, "two", "a.bin"))
	if err != nil || string(got) != string(a) {
		t.Fatalf("a.bin: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dest, "two", "b.bin")); !os.IsNotExist(err) {
		t.Fatalf("the skipped b.bin is at its final name: %v", err)
	}
	// b.bin's pieces are 16 onwards: only what was in flight when it was
	// skipped (the first moments at 64 KiB/s) may have come.
	comp, err := q.TorrentPieces(dest)
	if err != nil {
		t.Fatal(err)
	}
	pieces, err := comp.Load(mi.HashInfoBytes().HexString())
	if err != nil {
		t.Fatal(err)
	}
	var ofB int
	for i, done := range pieces {
		if done && i >= size/(64<<10) {
			ofB++
		}
	}
	if ofB > 4 {
		t.Errorf("%d pieces of the skipped b.bin were fetched", ofB)
	}
	t.Logf("pieces of the skipped b.bin fetched: %d of %d", ofB, len(b)/(64<<10))
}
