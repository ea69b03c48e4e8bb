package ui

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"braid/internal/testkit"
)

// liveWaits is a backend whose seeding jobs and downloads waiting for the
// network are live, as the bridge's are.
type liveWaits struct{ liveSeeds }

func (b liveWaits) Active() []Job {
	out := b.liveSeeds.Active()
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, j := range b.jobs {
		if j.State == Waiting {
			out = append(out, j.Job)
		}
	}
	return out
}

// TestTickerPaceOfWaitingAndSeeds: a download waiting for the network
// beside a torrent seeding to nobody is read once a second (its countdown
// is in seconds), not at the full rate: together they cost no more than
// the waiting one alone, and the seed is not read four times a second
// because of its neighbour. Once bytes move, the full rate again.
func TestTickerPaceOfWaitingAndSeeds(t *testing.T) {
	b := liveWaits{liveSeeds{newMemBackend()}}
	b.put(Detail{Job: Job{Name: "seed.iso", State: Seeding, Size: 100, Done: 100, ETA: -1}})
	waiting := b.put(Detail{Job: Job{Name: "far.iso", State: Waiting, Size: 100, ETA: -1, NextTry: time.Now().Add(time.Minute)}})
	p := newPoller(b)
	var applied atomic.Int64
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan struct{})
	const full = 10 * time.Millisecond
	go func() {
		defer close(done)
		p.loop(ctx, full, func(reading) { applied.Add(1) })
	}()
	testkit.WaitFor(t, "a first reading", func() bool { return applied.Load() >= 1 })
	start := applied.Load()
	time.Sleep(500 * time.Millisecond) // fifty periods of the full rate
	if n := applied.Load() - start; n > 1 {
		t.Errorf("a waiting download beside an idle seed was read %d times in 500 ms, want at most every %v", n, waitInterval)
	}
	if got := paceOf(b.Active()).period(full); got != waitInterval {
		t.Errorf("period with a waiting download and an idle seed: %v, want %v", got, waitInterval)
	}

	b.update(waiting, func(d *Detail) { d.State, d.Speed = Running, 1<<20 })
	p.poke()
	mark := applied.Load()
	testkit.WaitFor(t, "20 readings at the full rate", func() bool { return applied.Load() >= mark+20 })
	cancel()
	<-done
}
