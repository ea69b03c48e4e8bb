package runner

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"braid/engine/mirrortest"
	"braid/engine/torrent"
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
	if err := q.UpdateSettings(func(st *queue.Settings) { st.Torrent = queue.TorrentSettings{SeedRatio: 1000} }); err != nil {
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

// A seeding stopped while its job still downloads (the row may already
// show the files done and the torrent seeding, while the run has yet to
// hand it over) never begins: the user removed the job or stopped its
// seeding, and it must not seed on unseen.
func TestStopSeedingBeforeItBegins(t *testing.T) {
	t.Parallel()
	q := queuetest.Open(t, queue.Open, t.TempDir())
	if err := q.UpdateSettings(func(st *queue.Settings) { st.Torrent = queue.TorrentSettings{SeedRatio: 1000} }); err != nil {
		t.Fatal(err)
	}
	src := t.TempDir()
	data := testkit.Data(512 << 10)
	mi := torrenttest.Make(t, src, "late.bin", 64<<10, []torrenttest.File{{Data: data}}, mirrortest.New(t, data, mirrortest.Rate(256<<10)).URL())
	dest := t.TempDir()
	id := addTorrent(t, q, torrenttest.WriteFile(t, mi, "late.torrent"), dest, nil)
	r := torrentRunner(t, q)
	defer r.Close()
	ran := make(chan error, 1)
	go func() { ran <- r.RunJob(context.Background(), id) }()
	var tj *torrent.Job
	testkit.WaitFor(t, "the torrent to run", func() bool {
		var ok bool
		tj, ok = r.LiveTorrent(id)
		return ok && tj.Snapshot().Bytes > 0
	})
	select {
	case <-tj.Complete():
		t.Skip("the torrent finished before its seeding could be stopped: the test shows nothing")
	default:
	}
	r.StopSeeding(id)
	if err := <-ran; err != nil {
		t.Fatal(err)
	}
	if got := r.Seeding(); len(got) != 0 {
		t.Fatalf("seeding %v after its seeding was stopped during the download", got)
	}
	if j, err := q.Get(id); err != nil || j.State != queue.Done {
		t.Fatalf("job after the run: %v %v, want done", j.State, err)
	}
	if got, err := os.ReadFile(filepath.Join(dest, "late.bin")); err != nil || !bytes.Equal(got, data) {
		t.Fatalf("late.bin: %d bytes, %v", len(got), err)
	}
}

// A decision to stop a paused torrent's seeding, read before the user
// resumed it (the service reads the torrents, then the queue), leaves
// the resumed run alone: it seeds when it ends, and is not done for
// good as if its seeding had been stopped during it.
func TestStaleSeedPauseLeavesTheResumedRun(t *testing.T) {
	t.Parallel()
	q := queuetest.Open(t, queue.Open, t.TempDir())
	if err := q.UpdateSettings(func(st *queue.Settings) { st.Torrent = queue.TorrentSettings{SeedRatio: 1000} }); err != nil {
		t.Fatal(err)
	}
	src := t.TempDir()
	data := testkit.Data(512 << 10)
	mi := torrenttest.Make(t, src, "again.bin", 64<<10, []torrenttest.File{{Data: data}}, mirrortest.New(t, data, mirrortest.Rate(256<<10)).URL())
	dest := t.TempDir()
	id := addTorrent(t, q, torrenttest.WriteFile(t, mi, "again.torrent"), dest, nil)
	r := torrentRunner(t, q)
	defer r.Close()
	if err := r.RunJob(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	stale := r.seedingNow()
	if stale[id] == nil {
		t.Fatalf("seeding %v after the run, want job %d", r.Seeding(), id)
	}
	// The user pauses its seeding, and the file goes back to a .part
	// with only its first half, so that the resumed run has pieces to
	// fetch (from the slow web seed) while the stale decision comes in.
	if err := q.SetSeedPaused(id, true); err != nil {
		t.Fatal(err)
	}
	r.StopSeeding(id)
	name := filepath.Join(dest, "again.bin")
	if err := os.Truncate(name, int64(len(data)/2)); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(name, name+".part"); err != nil {
		t.Fatal(err)
	}
	if ok, err := q.ResumeSeeding(id); err != nil || !ok {
		t.Fatalf("resume its seeding: %v %v", ok, err)
	}
	ran := make(chan error, 1)
	go func() { ran <- r.RunJob(context.Background(), id) }()
	var tj *torrent.Job
	testkit.WaitFor(t, "the resumed torrent to run", func() bool {
		var ok bool
		tj, ok = r.LiveTorrent(id)
		return ok && tj != stale[id]
	})
	select {
	case <-tj.Complete():
		t.Skip("the resumed torrent finished before the stale decision came: the test shows nothing")
	default:
	}
	r.stopSeedingOf(id, stale[id])
	if err := <-ran; err != nil {
		t.Fatal(err)
	}
	if got := r.Seeding(); !slices.Contains(got, id) {
		t.Fatalf("seeding %v after the resumed run, want job %d", got, id)
	}
	if got, err := os.ReadFile(filepath.Join(dest, "again.bin")); err != nil || !bytes.Equal(got, data) {
		t.Fatalf("again.bin: %d bytes, %v", len(got), err)
	}
}

// A torrent that cannot seed on for a passing cause (its BitTorrent port
// held by another program) says why, and seeds on at the next start: only
// files gone or changed end its seeding for good.
func TestSeedOnAfterAPortWasHeld(t *testing.T) {
	t.Parallel()
	q := queuetest.Open(t, queue.Open, t.TempDir())
	if err := q.UpdateSettings(func(st *queue.Settings) { st.Torrent = queue.TorrentSettings{SeedRatio: 1000} }); err != nil {
		t.Fatal(err)
	}
	data := testkit.Data(200 << 10)
	mi := torrenttest.Make(t, t.TempDir(), "s.bin", 64<<10, []torrenttest.File{{Data: data}}, mirrortest.New(t, data).URL())
	id := addTorrent(t, q, torrenttest.WriteFile(t, mi, "s.bin.torrent"), t.TempDir(), nil)
	r := torrentRunner(t, q)
	if err := r.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}

	held, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := held.Addr().(*net.TCPAddr).Port
	busy := torrent.NewClient(torrent.Config{ListenHost: "127.0.0.1", ListenPort: port, Logger: slog.New(slog.DiscardHandler)})
	r = runner(q)
	r.Torrent = busy
	if err := r.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	why := r.NotSeedingOn()[id]
	if want := fmt.Sprintf("port %d is in use by another program", port); why == nil || !strings.Contains(why.Error(), want) {
		t.Fatalf("why job %d does not seed on: %v; want it to say %q", id, why, want)
	}
	if s, err := q.Seeded(id); err != nil || !s.Active {
		t.Fatalf("after a held port: %+v %v; want it to seed on at the next start", s, err)
	}
	r.Close()
	busy.Close()
	held.Close()

	r = torrentRunner(t, q)
	defer r.Close()
	if err := r.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := r.Seeding(); !slices.Equal(got, []int64{id}) {
		t.Fatalf("seeding %v once the port was free, want [%d]", got, id)
	}
	if len(r.NotSeedingOn()) != 0 {
		t.Errorf("NotSeedingOn after it seeds on: %v", r.NotSeedingOn())
	}
}

// A seeding the user stops does not seed on at the next start, even when
// the runner closes at once after (braid queue run ends when nothing is
// left to seed): the record of its end must not take Close's quitting for
// the reason it stopped.
func TestStoppedSeedingStaysStoppedThroughClose(t *testing.T) {
	t.Parallel()
	for i := range 5 { // the record races Close: try it a few times
		q := queuetest.Open(t, queue.Open, t.TempDir())
		if err := q.UpdateSettings(func(st *queue.Settings) { st.Torrent = queue.TorrentSettings{SeedRatio: 1000} }); err != nil {
			t.Fatal(err)
		}
		src := t.TempDir()
		data := testkit.Data(100 << 10)
		mi := torrenttest.Make(t, src, "s.bin", 32<<10, []torrenttest.File{{Data: data}}, mirrortest.New(t, data).URL())
		id := addTorrent(t, q, torrenttest.WriteFile(t, mi, "s.torrent"), t.TempDir(), nil)
		r := torrentRunner(t, q)
		if err := r.Run(context.Background()); err != nil {
			t.Fatal(err)
		}
		if got := r.Seeding(); !slices.Equal(got, []int64{id}) {
			t.Fatalf("seeding %v after the run, want %d", got, id)
		}
		r.StopSeeding(id)
		if err := r.Close(); err != nil {
			t.Fatal(err)
		}
		if s, err := q.Seeded(id); err != nil || s.Active {
			t.Fatalf("try %d: the stopped seeding is recorded %+v (%v); want it not to seed on", i, s, err)
		}
	}
}
