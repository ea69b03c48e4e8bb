package main

import (
	"context"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"braid/engine/torrent/torrenttest"
	"braid/queue"
)

// waitSays waits until out holds want, and fails the test after limit.
func waitSays(t *testing.T, out *syncBuffer, want string, limit time.Duration) {
	t.Helper()
	end := time.Now().Add(limit)
	for !strings.Contains(out.String(), want) {
		if time.Now().After(end) {
			t.Fatalf("no %q within %s; the output:\n%s", want, limit, out.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// `braid queue run` seeds the torrents it downloads, as the window does:
// it stays until their ratio is reached. Ctrl-C stops it, and the next
// queue run, with nothing queued, seeds them on; a leecher that takes the
// whole file from it brings the ratio to 1 and ends that run by itself.
func TestQueueRunSeedsOn(t *testing.T) {
	t.Parallel()
	sq := newSeedQueue(t, "s.bin", getData(1<<20+7), 64<<10, false)
	state, q, mi, port, id := sq.state, sq.q, sq.mi, sq.port, sq.id
	q.Close()

	run := func(ctx context.Context, out *syncBuffer) <-chan int {
		code := make(chan int, 1)
		go func() { code <- cmdQueue(ctx, []string{"--state", state, "run"}, out, out) }()
		return code
	}
	const seeding = "seeding until it has sent 1.00 times its size (Ctrl-C stops; it seeds on at the next start)"

	// The first run downloads the torrent and seeds it until Ctrl-C.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out syncBuffer
	code := run(ctx, &out)
	waitSays(t, &out, "s.bin: "+seeding, time.Minute)
	select {
	case c := <-code:
		t.Fatalf("queue run ended (exit %d) while its torrent seeds:\n%s", c, out.String())
	case <-time.After(time.Second):
	}
	cancel()
	select {
	case <-code:
	case <-time.After(30 * time.Second):
		t.Fatalf("queue run went on after Ctrl-C:\n%s", out.String())
	}
	if !strings.Contains(out.String(), "the torrents seeding now seed on at the next start") {
		t.Errorf("Ctrl-C while seeding did not say the torrent seeds on:\n%s", out.String())
	}
	q, err := queue.Open(state)
	if err != nil {
		t.Fatal(err)
	}
	seeded, err := q.Seeded(id)
	q.Close()
	if err != nil || !seeded.Active {
		t.Fatalf("after Ctrl-C the torrent is not to seed on: %+v, %v", seeded, err)
	}

	// The second run has nothing queued: it seeds on, until a leecher
	// has taken the file once.
	ctx2, cancel2 := context.WithCancel(context.Background())
	defer cancel2()
	var out2 syncBuffer
	code = run(ctx2, &out2)
	waitSays(t, &out2, fmt.Sprintf("job %d s.bin: %s", id, seeding), time.Minute)
	if strings.Contains(out2.String(), "nothing to run") {
		t.Errorf("queue run said there was nothing to run beside a torrent to seed on:\n%s", out2.String())
	}
	_, complete := torrenttest.Leech(t, mi, fmt.Sprintf("127.0.0.1:%d", port))
	select {
	case <-complete:
	case <-time.After(time.Minute):
		t.Fatalf("the leecher got nothing from queue run's seeding:\n%s", out2.String())
	}
	select {
	case c := <-code:
		if c != 0 {
			t.Errorf("exit %d", c)
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("queue run went on seeding after the ratio was reached:\n%s", out2.String())
	}
	if want := fmt.Sprintf("job %d s.bin: done seeding, up 1.0 MiB, ratio 1.00", id); !strings.Contains(out2.String(), want) {
		t.Errorf("the run's end lacks %q:\n%s", want, out2.String())
	}
	t.Logf("the first run said:\n%s\nthe second:\n%s", out.String(), out2.String())
}

// A queue run whose torrent cannot seed on says why, in a sentence, and
// leaves it to seed on at the next start.
func TestQueueRunSaysWhyItDoesNotSeedOn(t *testing.T) {
	t.Parallel()
	sq := newSeedQueue(t, "h.bin", getData(256<<10), 64<<10, false)
	state, q, port, id := sq.state, sq.q, sq.port, sq.id
	q.Close()
	run := func(ctx context.Context, out *syncBuffer) <-chan int {
		code := make(chan int, 1)
		go func() { code <- cmdQueue(ctx, []string{"--state", state, "run"}, out, out) }()
		return code
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out syncBuffer
	code := run(ctx, &out)
	waitSays(t, &out, "h.bin: seeding until", time.Minute)
	cancel()
	<-code

	// Another program takes the port once the first run has let it go.
	var held net.Listener
	end := time.Now().Add(30 * time.Second)
	for held == nil {
		l, err := net.Listen("tcp4", fmt.Sprintf("127.0.0.1:%d", port))
		switch {
		case err == nil:
			held = l
		case time.Now().After(end):
			t.Fatalf("port %d still held 30 s after the run ended: %v", port, err)
		default:
			time.Sleep(20 * time.Millisecond)
		}
	}
	defer held.Close()

	var out2 syncBuffer
	select {
	case c := <-run(context.Background(), &out2):
		if c != 0 {
			t.Errorf("exit %d:\n%s", c, out2.String())
		}
	case <-time.After(time.Minute):
		t.Fatalf("queue run went on with its torrent's port held:\n%s", out2.String())
	}
	t.Logf("the second run said:\n%s", out2.String())
	if want := fmt.Sprintf("job %d does not seed on: ", id); !strings.Contains(out2.String(), want) || !strings.Contains(out2.String(), fmt.Sprintf("port %d is in use by another program", port)) {
		t.Fatalf("the run does not say why the torrent does not seed on (%q, the port):\n%s", want, out2.String())
	}
	q, err := queue.Open(state)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	if s, err := q.Seeded(id); err != nil || !s.Active {
		t.Fatalf("after a held port the torrent is not to seed on at the next start: %+v, %v", s, err)
	}
}
