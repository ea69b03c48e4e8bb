package engine

import (
	"math"
	"testing"
	"time"
)

// A download's speed is the bytes of the last second: after the rate
// changes, the speed is the new rate once a second has passed, whatever
// came before; before a second has passed it is the rate since the first
// sample.
func TestRateWindowFollowsWithinASecond(t *testing.T) {
	t.Parallel()
	const tick = 200 * time.Millisecond
	for _, tc := range []struct {
		name   string
		before int64 // bytes a second for 5 s
		after  int64 // bytes a second from then
		at     time.Duration
		want   float64
	}{
		{name: "slowed", before: 10 << 20, after: 500 << 10, at: time.Second, want: 500 << 10},
		{name: "slowed, later", before: 10 << 20, after: 500 << 10, at: 3 * time.Second, want: 500 << 10},
		{name: "sped up", before: 100 << 10, after: 8 << 20, at: time.Second, want: 8 << 20},
		{name: "stopped", before: 4 << 20, after: 0, at: time.Second, want: 0},
		{name: "half way", before: 2 << 20, after: 0, at: 600 * time.Millisecond, want: 2 << 20 * 0.4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var w rateWindow
			start := time.Unix(1e9, 0)
			var total int64
			got := w.add(start, 0)
			for at := tick; at <= 5*time.Second+tc.at; at += tick {
				rate := tc.before
				if at > 5*time.Second {
					rate = tc.after
				}
				total += rate * int64(tick) / int64(time.Second)
				got = w.add(start.Add(at), total)
			}
			if math.Abs(got-tc.want) > 1+tc.want/1e6 { // whole bytes a tick
				t.Errorf("%s after a change from %d B/s to %d B/s: %.0f B/s, want %.0f", tc.at, tc.before, tc.after, got, tc.want)
			}
			if len(w.samples) > int(speedSpan/tick)+1 {
				t.Errorf("%d samples kept for a span of %s at one a %s", len(w.samples), speedSpan, tick)
			}
		})
	}
	var w rateWindow
	now := time.Unix(1e9, 0)
	w.add(now, 0)
	if got := w.add(now.Add(100*time.Millisecond), 50_000); got != 500_000 {
		t.Errorf("a tenth of a second after the start with 50 kB: %.0f B/s, want 500000", got)
	}
}
