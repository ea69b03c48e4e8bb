package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"braid/engine/metalink"
	"braid/queue"
)

// TestQueueResumeSeeding: `braid queue pause ID` pauses a done torrent's
// seeding as the window's Pause does (the queue's seed_paused), and
// `braid queue resume ID` resumes it, also one paused in the window: it is
// queued again, no longer paused, and the next queue run checks its files
// and seeds it. A done job that does not seed is still refused.
func TestQueueResumeSeeding(t *testing.T) {
	t.Parallel()
	sq := newSeedQueue(t, "p.bin", getData(256<<10+5), 32<<10, true)
	state, dest, q, id, m, data := sq.state, sq.dest, sq.q, sq.id, sq.m, sq.data
	plain, err := q.Add(queue.NewJob{Source: m.URL(), Dest: dest, Doc: &metalink.Document{Version: 4, Files: []metalink.File{
		{Name: "plain.bin", Size: int64(len(data)), URLs: []metalink.URL{{URL: m.URL(), Priority: 1}}}}}})

	if err != nil {
		t.Fatal(err)
	}
	// Done, and seeding, as a Braid that seeds it records it.
	for _, j := range []int64{id, plain} {
		if _, err := q.Finish(j); err != nil {
			t.Fatal(err)
		}
	}
	if err := q.SetSeeded(id, queue.Seeded{Active: true}); err != nil {
		t.Fatal(err)
	}
	q.Close()

	var out syncBuffer
	if code := cmdQueue(context.Background(), []string{"--state", state, "pause", strconv.FormatInt(id, 10)}, &out, &out); code != 0 {
		t.Fatalf("queue pause %d of a torrent that seeds: exit %d\n%s", id, code, out.String())
	}
	q, err = queue.Open(state)
	if err != nil {
		t.Fatal(err)
	}
	paused, err := q.SeedPaused()
	q.Close()
	if err != nil || !paused[id] {
		t.Fatalf("after queue pause its seeding is not paused: %v, %v", paused, err)
	}
	if code := cmdQueue(context.Background(), []string{"--state", state, "resume", strconv.FormatInt(id, 10)}, &out, &out); code != 0 {
		t.Fatalf("queue resume %d of a torrent whose seeding is paused: exit %d\n%s", id, code, out.String())
	}
	var refused syncBuffer
	if code := cmdQueue(context.Background(), []string{"--state", state, "resume", strconv.FormatInt(plain, 10)}, &refused, &refused); code != 1 ||
		!strings.Contains(refused.String(), "it is done") {
		t.Errorf("queue resume of a done job that does not seed: exit %d\n%s", code, refused.String())
	}
	q, err = queue.Open(state)
	if err != nil {
		t.Fatal(err)
	}
	st, err := q.StateOf(id)
	paused, perr := q.SeedPaused()
	q.Close()
	if err != nil || perr != nil || st != queue.Queued || paused[id] {
		t.Fatalf("after queue resume: state %s (%v), seeding paused %v (%v); want queued, not paused", st, err, paused[id], perr)
	}

	// The next run checks the files it has and seeds them.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var run syncBuffer
	code := make(chan int, 1)
	go func() { code <- cmdQueue(ctx, []string{"--state", state, "run"}, &run, &run) }()
	waitSays(t, &run, fmt.Sprintf("job %d p.bin: seeding until it has sent 1.00 times its size", id), time.Minute)
	cancel()
	select {
	case <-code:
	case <-time.After(30 * time.Second):
		t.Fatalf("queue run went on after Ctrl-C:\n%s", run.String())
	}
}
