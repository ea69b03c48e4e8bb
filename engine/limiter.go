package engine

import (
	"context"
	"sync"
	"time"
)

// limiter is a token bucket shared by every connection of a Client, so
// Client.Limit holds for the sum of them. A caller pays for bytes it has
// already read: the bucket may go into debt, and the next caller waits until
// the debt is repaid, so a read larger than the burst still works and the
// long-run rate never exceeds the limit. It is safe for concurrent use.
type limiter struct {
	rate  float64 // bytes per second
	burst float64 // most tokens an idle bucket saves up

	mu     sync.Mutex
	tokens float64
	last   time.Time
}

// newLimiter returns a limiter of rate bytes per second, or nil (no limit)
// for rate <= 0. The burst is a tenth of a second's worth, at least 16 KiB,
// so a short pause does not turn into a spike above the limit.
func newLimiter(rate int64) *limiter {
	if rate <= 0 {
		return nil
	}
	burst := max(float64(rate)/10, 16<<10)
	return &limiter{rate: float64(rate), burst: burst, tokens: burst, last: time.Now()}
}

// chunk is the largest read a connection should make under this limit:
// about 50 ms worth, so bytes flow evenly instead of in large lumps.
func (l *limiter) chunk(size int) int {
	if l == nil {
		return size
	}
	return min(max(int(l.rate/20), 4<<10), size)
}

// wait takes n tokens and blocks until the bucket is out of debt or ctx ends.
func (l *limiter) wait(ctx context.Context, n int) error {
	if l == nil || n <= 0 {
		return nil
	}
	l.mu.Lock()
	now := time.Now()
	l.tokens = min(l.tokens+now.Sub(l.last).Seconds()*l.rate, l.burst)
	l.last = now
	l.tokens -= float64(n)
	debt := -l.tokens
	l.mu.Unlock()
	if debt <= 0 {
		return nil
	}
	t := time.NewTimer(time.Duration(debt / l.rate * float64(time.Second)))
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
