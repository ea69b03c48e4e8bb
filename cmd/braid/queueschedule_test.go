package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"braid/engine/metalink"
	"braid/engine/mirrortest"
	"braid/engine/piece"
	"braid/queue"
)

// startQueueRun starts `braid queue run` on state as a child process,
// with its output in the buffer it returns and its exit in the channel.
func startQueueRun(t *testing.T, bin, state string) (*syncBuffer, <-chan error) {
	t.Helper()
	out := &syncBuffer{}
	cmd := exec.Command(bin, "queue", "--state", state, "run")
	cmd.Env = withoutDisplay(os.Environ())
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			<-exited
		}
	})
	return out, exited
}

// waitExit waits for a child started by startQueueRun to end with status
// 0.
func waitExit(t *testing.T, exited <-chan error, out *syncBuffer, limit time.Duration) {
	t.Helper()
	select {
	case err := <-exited:
		if err != nil {
			t.Fatalf("braid queue run: %v\n%s", err, out.String())
		}
	case <-time.After(limit):
		t.Fatalf("braid queue run still runs after %s:\n%s", limit, out.String())
	}
}

// `braid queue run` honours the schedule the window sets: outside its time
// windows it holds the queued job and says until when, touching no
// mirror; a change of the schedule reaches it (braid queue wakes it, as
// the window is woken); it runs the job once the pause that replaced the
// windows ends, under the schedule's slower speed, and says both.
func TestQueueRunHoldsForTheSchedule(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir()) // the wake's socket, the child's and this test's
	bin := buildBraid(t)
	data := getData(1 << 20)
	m := mirrortest.New(t, data)
	f, err := piece.Describe(context.Background(), bytes.NewReader(data), int64(len(data)), "held.bin", 64<<10, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.URLs = []metalink.URL{{URL: m.URL(), Priority: 1}}
	state, dest := t.TempDir(), t.TempDir()
	q, err := queue.Open(state)
	if err != nil {
		t.Fatal(err)
	}
	id, err := q.Add(queue.NewJob{Source: "held.meta4", Dest: dest, Doc: &metalink.Document{Version: 4, Files: []metalink.File{f}}})
	if err != nil {
		t.Fatal(err)
	}
	// A window that opens in two hours.
	now := time.Now()
	start := (now.Hour()*60 + now.Minute() + 120) % (24 * 60)
	const slow = 256 << 10
	sched := queue.Schedule{Windows: []queue.TimeWindow{{Start: start, End: (start + 60) % (24 * 60)}}, AltSpeed: true, AltLimit: slow}
	if err := q.UpdateSettings(func(st *queue.Settings) { st.Schedule = sched }); err != nil {
		t.Fatal(err)
	}
	q.Close()

	out, exited := startQueueRun(t, bin, state)
	waitSays(t, out, "the schedule holds the queue: outside its time windows; downloads start at ", time.Minute)
	q, err = queue.Open(state)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	if s, err := q.StateOf(id); err != nil || s != queue.Queued || m.Requests() > 0 {
		t.Fatalf("held by the schedule the job is %s (%v) and the mirror had %d requests", s, err, m.Requests())
	}

	// The windows give way to a pause of all that ends in two seconds.
	until := time.Now().Add(2 * time.Second)
	sched.Windows, sched.PausedUntil = nil, until
	if err := q.UpdateSettings(func(st *queue.Settings) { st.Schedule = sched }); err != nil {
		t.Fatal(err)
	}
	wakeRunning(context.Background())
	waitSays(t, out, "the schedule holds the queue: all downloads are paused until ", 20*time.Second)
	for time.Now().Before(until.Add(-100 * time.Millisecond)) {
		if n := m.Requests(); n > 0 {
			t.Fatalf("the mirror had %d requests before the pause ended:\n%s", n, out.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	waitExit(t, exited, out, 30*time.Second)
	took := time.Since(until)
	if got, err := os.ReadFile(filepath.Join(dest, "held.bin")); err != nil || !bytes.Equal(got, data) {
		t.Fatalf("held.bin after the run: %d bytes, %v\n%s", len(got), err, out.String())
	}
	for _, want := range []string{"the schedule lets downloads run now", "the schedule's slower speed is on: downloads at most 256 KiB/s"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("queue run did not say %q:\n%s", want, out.String())
		}
	}
	// 1 MiB at 256 KiB/s takes about 4 s; well under 2 s would be
	// unlimited.
	if took < 2*time.Second {
		t.Errorf("1 MiB under the schedule's %d B/s limit took %s", slow, took)
	}
	t.Logf("queue run said:\n%s", out.String())
}

// `braid queue pause ID`, run while `braid queue run` seeds that torrent,
// stops the seeding there (the run notices the queue's change, as the
// window does), and the run, with nothing more to seed, ends.
func TestQueuePauseStopsQueueRunSeeding(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	bin := buildBraid(t)
	sq := newSeedQueue(t, "p.bin", getData(256<<10+5), 32<<10, true)
	state, id := sq.state, sq.id
	// Queued with its file there: the run checks it and seeds.
	sq.q.Close()

	out, exited := startQueueRun(t, bin, state)
	waitSays(t, out, fmt.Sprintf("job %d p.bin: seeding until it has sent 1.00 times its size", id), time.Minute)
	pause := exec.Command(bin, "queue", "--state", state, "pause", strconv.FormatInt(id, 10))
	pause.Env = withoutDisplay(os.Environ())
	if b, err := pause.CombinedOutput(); err != nil {
		t.Fatalf("braid queue pause %d: %v\n%s", id, err, b)
	}
	waitExit(t, exited, out, 20*time.Second)
	if want := fmt.Sprintf("job %d p.bin: seeding stopped", id); !strings.Contains(out.String(), want) {
		t.Errorf("queue run did not say %q:\n%s", want, out.String())
	}
	q, err := queue.Open(state)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	seeded, err := q.Seeded(id)
	if err != nil || seeded.Active {
		t.Errorf("a torrent whose seeding was paused is to seed on at the next start: %+v, %v", seeded, err)
	}
	if paused, err := q.SeedPaused(); err != nil || !paused[id] {
		t.Errorf("its seeding is not recorded paused: %v, %v", paused, err)
	}
}
