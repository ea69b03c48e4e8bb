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

// A torrent whose seeding the user paused stays paused across a restart
// of the window (the queue closed and opened again from its file): it
// shows paused, does not seed, and Resume seeds it again.
func TestPausedSeedingKeptAcrossRestart(t *testing.T) {
	t.Parallel()
	src := t.TempDir()
	mi := torrenttest.Make(t, src, "kept.bin", 64<<10, []torrenttest.File{{Data: payload(512 << 10)}})
	peer := torrenttest.Seed(t, src, mi)
	magnet := fmt.Sprintf("magnet:?xt=urn:btih:%s&dn=kept.bin&x.pe=%s", mi.HashInfoBytes().HexString(), peer)

	state := t.TempDir()
	q, err := queue.Open(state)
	if err != nil {
		t.Fatal(err)
	}
	if err := q.UpdateSettings(func(st *queue.Settings) { st.Torrent = queue.TorrentSettings{SeedRatio: 1000} }); err != nil {
		t.Fatal(err)
	}
	b := New(q, nil)
	if err := b.Start(false); err != nil {
		t.Fatal(err)
	}
	doc := openDoc(t, b, magnet)
	id, err := b.Add(context.Background(), ui.AddRequest{Source: magnet, Doc: doc, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, "the torrent to seed", func() bool { return slices.Contains(b.runner.Seeding(), int64(id)) })
	if err := b.Pause(id); err != nil {
		t.Fatal(err)
	}
	b.Close()
	q.Close()

	q = queuetest.Open(t, queue.Open, state)
	b = startedBackend(t, q)
	j := jobByID(t, b, id)
	if j.State != ui.Paused || !j.State.Resumable() {
		t.Fatalf("after a restart the paused seeding shows %v %q", j.State, j.Err)
	}
	if slices.Contains(b.runner.Seeding(), int64(id)) {
		t.Fatal("it seeds after a restart although paused")
	}
	if err := b.Resume(id); err != nil {
		t.Fatalf("resume: %v", err)
	}
	testkit.WaitFor(t, "it to seed again", func() bool { return slices.Contains(b.runner.Seeding(), int64(id)) })
	testkit.WaitFor(t, "its row to say so", func() bool { return jobByID(t, b, id).State == ui.Seeding })
	if got, err := q.SeedPaused(); err != nil || got[int64(id)] {
		t.Fatalf("still recorded paused after Resume: %v %v", got, err)
	}
}
