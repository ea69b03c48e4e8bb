package runner

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"braid/engine/mirrortest"
	"braid/internal/testkit"
	"braid/queue"
	"braid/queue/queuetest"
)

// limitWindow is the bytes per second the job's download read over a
// window (as the engine counts them, when read: the socket buffers a
// mirror fills do not blur it), measured after a second past the start;
// it fails t when over 2.5 times limit (a loaded machine), or when the run
// ended meanwhile (a window after the end says nothing about the limit).
func limitWindow(t *testing.T, what string, r *Runner, id, limit int64, res <-chan error) {
	t.Helper()
	read := func() (n int64) {
		for _, dl := range r.LiveAll(id) {
			for _, m := range dl.Snapshot().Mirrors {
				n += m.Bytes
			}
		}
		return n
	}
	time.Sleep(time.Second)
	b0, t0 := read(), time.Now()
	time.Sleep(2 * time.Second)
	got := float64(read()-b0) / time.Since(t0).Seconds()
	t.Logf("%s: %.0f B/s, %.2f of %d", what, got, got/float64(limit), limit)
	if got > 2.5*float64(limit) {
		t.Errorf("%s: %.0f B/s under a job limit of %d", what, got, limit)
	}
	select {
	case err := <-res:
		t.Fatalf("%s: the run ended while its limit was measured (%v): the limit did not hold", what, err)
	default:
	}
}

// A job's own limit, stored in the queue, holds for its run; a change
// made by another process (straight in the queue) reaches the running
// download within a poll interval and one made through the runner at
// once, and neither restarts it: the same engine download goes on, the
// mirror is asked for the file's first byte once, and serves the file
// once. The limit is kept across a pause and a reopen of the queue, and
// the next run takes it.
func TestJobLimitFollowedAndKept(t *testing.T) {
	t.Parallel()
	const limit = 512 << 10
	data := testkit.Data(24 << 20)
	m := mirrortest.New(t, data, mirrortest.Addr("127.0.0.2"))
	state, dest := t.TempDir(), t.TempDir()
	q, err := queue.Open(state)
	if err != nil {
		t.Fatal(err)
	}
	id, err := q.Add(queue.NewJob{Source: "l.meta4", Dest: dest, Doc: describe(t, "l.bin", data, 256<<10, m)})
	if err != nil {
		t.Fatal(err)
	}
	if err := q.SetJob(id, queue.Limit(limit)); err != nil {
		t.Fatal(err)
	}
	r := runner(q)
	res := make(chan error, 1)
	go func() { res <- r.RunJob(context.Background(), id) }()
	testkit.WaitFor(t, "the download to start", func() bool { _, ok := r.Live(id); return ok })
	dl, _ := r.Live(id)
	if got, ok := r.JobLimit(id); !ok || got != limit {
		t.Fatalf("the run's limit is %d (running %v), want the job's %d", got, ok, limit)
	}
	limitWindow(t, "at the stored limit", r, id, limit, res)

	// Another braid command changes it: the runner follows the queue.
	if err := q.SetJob(id, queue.Limit(2*limit)); err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, "the run to follow the queue's new limit", func() bool { got, _ := r.JobLimit(id); return got == 2*limit })
	limitWindow(t, "raised in the queue", r, id, 2*limit, res)
	if now, ok := r.Live(id); !ok || now != dl {
		t.Fatal("a change of the job's limit restarted its download")
	}

	// Pause, close, reopen: the limit is the job's, and the next run
	// takes it.
	if err := q.Pause(id, ""); err != nil {
		t.Fatal(err)
	}
	if err := <-res; !errors.Is(err, queue.ErrPaused) {
		t.Fatalf("the paused run ended with %v", err)
	}
	if err := q.Close(); err != nil {
		t.Fatal(err)
	}
	q = queuetest.Open(t, queue.Open, state)
	if j, err := q.Get(id); err != nil || j.Limit != 2*limit {
		t.Fatalf("after a reopen the job's limit is %d, %v, want %d", j.Limit, err, 2*limit)
	}
	if err := q.Resume(id); err != nil {
		t.Fatal(err)
	}
	r = runner(q)
	go func() { res <- r.RunJob(context.Background(), id) }()
	testkit.WaitFor(t, "the download to start again", func() bool { _, ok := r.Live(id); return ok })
	dl, _ = r.Live(id)
	if got, ok := r.JobLimit(id); !ok || got != 2*limit {
		t.Fatalf("the new run's limit is %d (running %v), want the kept %d", got, ok, 2*limit)
	}
	limitWindow(t, "after a reopen", r, id, 2*limit, res)

	// Lifted through the runner: at once, and the same download ends.
	if err := r.SetJobLimit(id, 0); err != nil {
		t.Fatal(err)
	}
	if got, _ := r.JobLimit(id); got != 0 {
		t.Fatalf("the run's limit is %d right after it was lifted", got)
	}
	if err := <-res; err != nil {
		t.Fatal(err)
	}
	if j, _ := q.Get(id); j.Limit != 0 {
		t.Errorf("the queue keeps a limit of %d after it was lifted", j.Limit)
	}
	if dl.Snapshot().Bytes == 0 {
		t.Error("the download that was running when the limit was lifted fetched nothing after it")
	}
	got, err := os.ReadFile(filepath.Join(dest, "l.bin"))
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("downloaded file: %d bytes, %v", len(got), err)
	}
	fromStart := 0
	for _, rg := range m.Ranges() {
		if rg.Method == "GET" && rg.Off == 0 {
			fromStart++
		}
	}
	if fromStart != 1 {
		t.Errorf("%d requests from the file's first byte, want 1", fromStart)
	}
	// What the mirror served beyond the file: the piece in flight at the
	// pause, and what sat in the socket buffers then (a few MB on
	// loopback); a restart from the first byte would be the whole file.
	if n := m.BytesServed(); n > int64(len(data))+8<<20 {
		t.Errorf("the mirror served %d bytes for a file of %d", n, len(data))
	}
	if _, ok := r.JobLimit(id); ok {
		t.Error("the run's limit is still held after the run ended")
	}
}

// A torrent job's own limit holds for what its web seed sends, and
// lifting it while the torrent runs reaches it at once: the same torrent
// job goes on to the end, nothing restarts.
func TestTorrentJobLimit(t *testing.T) {
	t.Parallel()
	const limit = 512 << 10
	data, _, tf := webSeeded(t, "lim.bin", 16<<20)
	q := noSeedQueue(t)
	dest := t.TempDir()
	id := addTorrent(t, q, tf, dest, nil)
	if err := q.SetJob(id, queue.Limit(limit)); err != nil {
		t.Fatal(err)
	}
	r := torrentRunner(t, q)
	res := make(chan error, 1)
	go func() { res <- r.RunJob(context.Background(), id) }()
	testkit.WaitFor(t, "the torrent to start", func() bool { _, ok := r.LiveTorrent(id); return ok })
	tj, _ := r.LiveTorrent(id)
	read := func() (n int64) {
		for _, m := range tj.Snapshot().Mirrors {
			n += m.Bytes
		}
		return n
	}
	time.Sleep(2 * time.Second) // past the start and the first burst
	b0, t0 := read(), time.Now()
	time.Sleep(3 * time.Second)
	el := time.Since(t0).Seconds()
	got := float64(read()-b0) / el
	t.Logf("torrent at %d B/s: %.0f B/s", limit, got)
	// The burst and a web seed request's read in flight aside.
	if slack := float64(4*128<<10) / el; got > 1.3*limit+slack {
		t.Errorf("the torrent read %.0f B/s under a job limit of %d", got, limit)
	}
	select {
	case err := <-res:
		t.Fatalf("the torrent ended while its limit was measured (%v): the limit did not hold", err)
	default:
	}
	if err := r.SetJobLimit(id, 0); err != nil {
		t.Fatal(err)
	}
	if err := <-res; err != nil {
		t.Fatal(err)
	}
	if now, ok := r.LiveTorrent(id); !ok || now != tj {
		t.Error("lifting the limit restarted the torrent")
	}
	got2, err := os.ReadFile(filepath.Join(dest, "lim.bin"))
	if err != nil || !bytes.Equal(got2, data) {
		t.Fatalf("downloaded file: %d bytes, %v", len(got2), err)
	}
}
