package torrent

import (
	"context"
	"testing"
	"time"

	"braid/engine"
)

// A torrent's own limit (Request.Limiter) holds on top of a client with
// none: what it reads from its peer over a window stays within it (a
// generous margin for a loaded machine, the burst and a read per
// connection aside). Raising and then lifting it while the torrent runs
// reaches it at once and restarts nothing: the same job goes on, and the
// piece data it reads in all is the file's size, not more.
//
// Not parallel: it measures throughput and wants the raised limit reached,
// which tests beside it on the same cores could keep it from.
func TestTorrentOwnLimitWhileRunning(t *testing.T) {
	const limit = 512 << 10
	src := t.TempDir()
	data := randomBytes(t, 24<<20+7)
	mi := makeTorrent(t, src, "own.bin", []testFile{{Path: "", Data: data}})
	addr := seeder(t, src, mi)
	c := NewClient(Config{ListenHost: "127.0.0.1", Logger: discard})
	t.Cleanup(func() { c.Close() })
	spec := specOf(t, mi)
	spec.Peers = []string{addr}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	lim := engine.NewLimiter(limit)
	j, err := c.Start(ctx, &Request{Dir: t.TempDir(), Spec: spec, Limiter: lim})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Stop()
	got := func() int64 { return j.Snapshot().Mirrors[0].Bytes }
	for deadline := time.Now().Add(time.Minute); got() == 0; {
		if time.Now().After(deadline) {
			t.Fatal("the torrent did not start")
		}
		time.Sleep(50 * time.Millisecond)
	}
	window := func(what string, rate float64) {
		t.Helper()
		time.Sleep(time.Second) // past the first burst
		b0, t0 := got(), time.Now()
		time.Sleep(3 * time.Second)
		el := time.Since(t0).Seconds()
		r := float64(got()-b0) / el
		t.Logf("%s: %.0f B/s, %.2f of %.0f B/s", what, r, r/rate, rate)
		slack := (float64(lim.RateLimiter().Burst()) + 4*128<<10) / el
		if r > rate*1.3+slack {
			t.Errorf("%s: %.0f B/s under a limit of %.0f", what, r, rate)
		}
		select {
		case <-j.Done():
			t.Fatalf("%s: the torrent ended while its limit was measured (%v): the limit did not hold", what, j.Err())
		default:
		}
	}
	window("at 512 KiB/s", limit)
	// The raised limit reaches the running torrent: since the raise it
	// has read more than the old limit could have let through (its
	// rate, its burst and a read per connection). A machine too busy to
	// feed the torrent for a while only makes that take longer; under
	// the old limit it never happens.
	oldSlack := float64(lim.RateLimiter().Burst() + 4*128<<10)
	lim.SetRate(4 * limit)
	took := pastLimit(t, got, limit, oldSlack, "the torrent")
	t.Logf("past the old limit %v after the raise", took.Round(time.Millisecond))
	window("raised to 2 MiB/s", 4*limit)
	lim.SetRate(0)
	select {
	case <-j.Complete():
	case <-ctx.Done():
		t.Fatal("the torrent did not complete after its limit was lifted")
	}
	if n := got(); n > int64(len(data))+int64(len(data))/20 {
		t.Errorf("read %d bytes of piece data for a file of %d: pieces fetched again", n, len(data))
	}
	sameFile(t, j.req.Dir, "own.bin", data)
}
