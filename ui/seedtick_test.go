package ui

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"braid/internal/testkit"
)

// liveSeeds is a backend whose seeding jobs are live, as the bridge's are.
type liveSeeds struct{ *memBackend }

func (b liveSeeds) Active() []Job {
	out := b.memBackend.Active()
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, j := range b.jobs {
		if j.State == Seeding {
			out = append(out, j.Job)
		}
	}
	return out
}

// TestTickerSlowForIdleSeeds: while all that is live is a torrent seeding
// to nobody, the window reads the backend every seedInterval, not every
// tick; once a peer comes, at the full rate again.
func TestTickerSlowForIdleSeeds(t *testing.T) {
	b := liveSeeds{newMemBackend()}
	id := b.put(Detail{Job: Job{Name: "seed.iso", State: Seeding, Size: 100, Done: 100, ETA: -1}})
	p := newPoller(b)
	var applied atomic.Int64
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan struct{})
	go func() {
		defer close(done)
		p.loop(ctx, time.Millisecond, func(reading) { applied.Add(1) })
	}()
	testkit.WaitFor(t, "a first reading", func() bool { return applied.Load() >= 1 })
	time.Sleep(100 * time.Millisecond) // a hundred periods
	if n := applied.Load(); n > 2 {
		t.Errorf("a seed with no peer was read %d times in 100 ms, want at most every %v", n, seedInterval)
	}
	b.update(id, func(d *Detail) { d.Peers, d.Upload = 1, 1024 })
	p.poke()
	testkit.WaitFor(t, "30 readings once a peer came", func() bool { return applied.Load() >= 30 })
	cancel()
	<-done
}
