package bridge

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"braid/engine/torrent/torrenttest"
	"braid/internal/testkit"
	"braid/queue"
	"braid/queue/queuetest"
	"braid/ui"
)

// A torrent the window seeds is paused, then resumed, by another process
// (braid queue pause and resume: the queue's PauseSeeding and
// ResumeSeeding, each followed by a wake): the window stops seeding it
// and its row says paused, then it seeds again and its row says so.
func TestSeedingPausedAndResumedByAnotherProcess(t *testing.T) {
	t.Parallel()
	src := t.TempDir()
	mi := torrenttest.Make(t, src, "other.bin", 64<<10, []torrenttest.File{{Data: payload(256 << 10)}})
	peer := torrenttest.Seed(t, src, mi)
	magnet := fmt.Sprintf("magnet:?xt=urn:btih:%s&dn=other.bin&x.pe=%s", mi.HashInfoBytes().HexString(), peer)

	state := t.TempDir()
	q := queuetest.Open(t, queue.Open, state)
	if err := q.UpdateSettings(func(st *queue.Settings) { st.Torrent = queue.TorrentSettings{SeedRatio: 1000} }); err != nil {
		t.Fatal(err)
	}
	b := startedBackend(t, q)
	doc := openDoc(t, b, magnet)
	id, err := b.Add(context.Background(), ui.AddRequest{Source: magnet, Doc: doc, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, "the torrent to seed", func() bool { return slices.Contains(b.runner.Seeding(), int64(id)) })

	other := queuetest.Open(t, queue.Open, state) // the command line's own connection
	if other.Owner() {
		t.Fatal("the second opening owns the queue")
	}
	testkit.WaitFor(t, "the queue to say it is done", func() bool {
		s, err := other.StateOf(int64(id))
		return err == nil && s == queue.Done
	})
	if ok, err := other.PauseSeeding(int64(id)); err != nil || !ok {
		t.Fatalf("PauseSeeding from another process: %v, %v", ok, err)
	}
	b.Wake() // what braid queue pause's wakeRunning does
	testkit.WaitFor(t, "it to stop seeding", func() bool { return !slices.Contains(b.runner.Seeding(), int64(id)) })
	testkit.WaitFor(t, "its row to show paused", func() bool { return jobByID(t, b, id).State == ui.Paused })

	if ok, err := other.ResumeSeeding(int64(id)); err != nil || !ok {
		t.Fatalf("ResumeSeeding from another process: %v, %v", ok, err)
	}
	b.Wake() // what braid queue resume's wakeRunning does
	testkit.WaitFor(t, "it to seed again", func() bool { return slices.Contains(b.runner.Seeding(), int64(id)) })
	testkit.WaitFor(t, "its row to say so", func() bool { return jobByID(t, b, id).State == ui.Seeding })
}
