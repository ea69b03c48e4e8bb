package bridge

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"braid/engine/torrent/torrenttest"
	"braid/queue"
	"braid/ui"
)

// A torrent seeding when the window closes seeds on at the next start,
// until its ratio: it is added again over the file it has (nothing is
// fetched, the file is not rewritten), a real anacrolix leecher that
// knows only Braid gets the whole file from it, which reaches the ratio
// of 1; the seeding ends, and the start after does not seed it again.
func TestSeedingGoesOnAfterARestart(t *testing.T) {
	src := t.TempDir()
	data := payload(768 << 10)
	mi := torrenttest.Make(t, src, "again.bin", 64<<10, []torrenttest.File{{Data: data}})
	peer := torrenttest.Seed(t, src, mi)
	magnet := fmt.Sprintf("magnet:?xt=urn:btih:%s&dn=again.bin&x.pe=%s", mi.HashInfoBytes().HexString(), peer)

	state := t.TempDir()
	q := openQueue2(t, state)
	if err := q.SetTorrentSettings(queue.TorrentSettings{SeedRatio: 1}); err != nil {
		t.Fatal(err)
	}
	b := New(q, nil)
	if err := b.Start(false); err != nil {
		t.Fatal(err)
	}
	doc := openDoc(t, b, magnet)
	dest := t.TempDir()
	id, err := b.Add(context.Background(), ui.AddRequest{Source: magnet, Doc: doc, Dir: dest})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the torrent to seed", func() bool { return slices.Contains(b.runner.Seeding(), int64(id)) })
	file := filepath.Join(dest, "again.bin")
	before, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	b.Close()
	if s, err := q.Seeded(int64(id)); err != nil || !s.Active || s.Uploaded != 0 {
		t.Fatalf("after quitting while seeding: %+v %v; want it to seed on, nothing uploaded", s, err)
	}
	q.Close()

	// The next start.
	q = openQueue2(t, state)
	b = startedBackend(t, q)
	waitFor(t, "it to seed again", func() bool { return slices.Contains(b.runner.Seeding(), int64(id)) })
	waitFor(t, "its row to say so", func() bool { return jobByID(t, b, id).State == ui.Seeding })
	tj, ok := b.runner.LiveTorrent(int64(id))
	if !ok {
		t.Fatal("no live torrent for the job seeding")
	}
	if s := tj.Snapshot(); s.Mirrors[0].Bytes != 0 || s.Verified != len(s.Pieces) {
		t.Errorf("seeding again fetched %d bytes; %d of %d pieces done", s.Mirrors[0].Bytes, s.Verified, len(s.Pieces))
	}
	if after, err := os.Stat(file); err != nil || !after.ModTime().Equal(before.ModTime()) {
		t.Errorf("the file was written again: %v", err)
	}
	c, err := b.runner.TorrentClient()
	if err != nil {
		t.Fatal(err)
	}
	dir, complete := torrenttest.Leech(t, mi, fmt.Sprintf("127.0.0.1:%d", c.Port()))
	select {
	case <-complete:
	case <-time.After(time.Minute):
		t.Fatal("the leecher did not get the file from the restarted Braid")
	}
	if got, err := os.ReadFile(filepath.Join(dir, "again.bin")); err != nil || !bytes.Equal(got, data) {
		t.Fatalf("the leecher's file: %v", err)
	}
	waitFor(t, "the ratio of 1 to end the seeding", func() bool { return !slices.Contains(b.runner.Seeding(), int64(id)) })
	waitFor(t, "its row to show it done", func() bool { return jobByID(t, b, id).State == ui.Done })
	b.Close()
	s, err := q.Seeded(int64(id))
	if err != nil || s.Active || s.Uploaded < int64(len(data)) {
		t.Fatalf("after the ratio: %+v %v", s, err)
	}
	q.Close()

	q = openQueue2(t, state)
	b = startedBackend(t, q)
	time.Sleep(time.Second)
	if slices.Contains(b.runner.Seeding(), int64(id)) {
		t.Fatal("it seeds again after reaching its ratio")
	}
	if j := jobByID(t, b, id); j.State != ui.Done {
		t.Errorf("row %v after its ratio", j.State)
	}
}
