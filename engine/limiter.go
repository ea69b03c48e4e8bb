package engine

import (
	"context"
	"math"
	"sync"
	"sync/atomic"
	"time"
)

// limiter is a token bucket shared by every connection of a Client, so
// Client.Limit holds for the sum of them. A caller pays for bytes it has
// already read: the bucket may go into debt, and the next caller waits until
// the debt is repaid, so a read larger than the burst still works and the
// long-run rate never exceeds the limit. Its rate can change while
// connections run (setRate); a waiting caller sees the change within
// maxWait. It is safe for concurrent use; a nil limiter is no limit.
type limiter struct {
	bits atomic.Uint64 // math.Float64bits of the rate in bytes per second; 0: no limit

	mu     sync.Mutex
	tokens float64
	last   time.Time
}

// maxWait is the longest a caller sleeps before it looks at the rate
// again, so a raised or removed limit reaches running downloads within it.
const maxWait = 250 * time.Millisecond

// newLimiter returns a limiter of rate bytes per second (rate <= 0: none
// for now).
func newLimiter(rate int64) *limiter {
	l := &limiter{last: time.Now()}
	l.setRate(rate)
	return l
}

func (l *limiter) rate() float64 {
	if l == nil {
		return 0
	}
	return math.Float64frombits(l.bits.Load())
}

// rateNow is the rate in bytes per second, 0 for none.
func (l *limiter) rateNow() int64 { return int64(l.rate()) }

// setRate changes the rate; rate <= 0 removes the limit. The bucket starts
// full at the new rate, with no debt carried over from the old one.
func (l *limiter) setRate(rate int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	r := float64(max(rate, 0))
	l.bits.Store(math.Float64bits(r))
	l.tokens, l.last = burstOf(r), time.Now()
}

// burstOf is the most tokens an idle bucket saves up: a tenth of a
// second's worth, at least 16 KiB, so a short pause does not turn into a
// spike above the limit.
func burstOf(rate float64) float64 { return max(rate/10, 16<<10) }

// chunk is the largest read a connection should make under this limit:
// about 50 ms worth, so bytes flow evenly instead of in large lumps.
func (l *limiter) chunk(size int) int {
	r := l.rate()
	if r <= 0 {
		return size
	}
	return min(max(int(r/20), 4<<10), size)
}

// wait takes n tokens and blocks until the bucket is out of debt or ctx ends.
func (l *limiter) wait(ctx context.Context, n int) error {
	if n <= 0 || l.rate() <= 0 {
		return nil
	}
	l.mu.Lock()
	rate := l.rate()
	if rate <= 0 {
		l.mu.Unlock()
		return nil
	}
	now := time.Now()
	l.tokens = min(l.tokens+now.Sub(l.last).Seconds()*rate, burstOf(rate))
	l.last = now
	l.tokens -= float64(n)
	l.mu.Unlock()
	for {
		l.mu.Lock()
		rate := l.rate()
		debt := -l.tokens
		if rate > 0 {
			// Debt shrinks as time passes; count it as repaid so far.
			debt -= time.Since(l.last).Seconds() * rate
		}
		l.mu.Unlock()
		if rate <= 0 || debt <= 0 {
			return nil
		}
		d := min(time.Duration(debt/rate*float64(time.Second)), maxWait)
		t := time.NewTimer(d)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		}
	}
}
