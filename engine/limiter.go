package engine

import (
	"context"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/time/rate"
)

// Limiter is a download budget in bytes per second: every connection of a
// Client takes from it, and so can the BitTorrent client (RateLimiter), so
// one limit holds for the sum of HTTP, FTP and BitTorrent.
//
// A caller pays for bytes it has already read: the bucket may go into
// debt, and the next caller waits until the debt is repaid, so a read
// larger than the burst still works and the long-run rate never exceeds
// the limit. Its rate can change while connections run (SetRate); a
// waiting caller sees the change within maxWait. It is safe for concurrent
// use; a nil Limiter is no limit.
type Limiter struct {
	bits atomic.Uint64 // math.Float64bits of the rate in bytes per second; 0: no limit
	gen  atomic.Uint64 // SetRate calls so far

	mu sync.Mutex // serialises SetRate
	rl *rate.Limiter
	// upload marks a limiter of what the BitTorrent library sends (see
	// NewUploadLimiter): a fixed burst, and never rate.Inf.
	upload bool
}

// openRate is an upload limiter's rate when there is no limit: too high to
// hold anything back, and finite, so the library still sees its burst.
const openRate = rate.Limit(1e15)

// maxWait is the longest a caller sleeps before it looks at the rate
// again, so a raised or removed limit reaches running downloads within it.
const maxWait = 250 * time.Millisecond

// minBurst is the smallest burst. anacrolix/torrent cuts each read to the
// burst in force when the read starts and takes the tokens when it
// returns; a burst lowered in between below the bytes read makes the
// library panic. Its reads are at most 128 KiB (a peer connection's
// bufio.Reader, a web seed's copy buffer), so a burst never below that is
// safe whatever the rate does. At rates under 1.28 MB/s this is more than
// a tenth of a second: the long-run rate still holds.
const minBurst = 128 << 10

// NewLimiter returns a Limiter of bytesPerSec (<= 0: none for now).
func NewLimiter(bytesPerSec int64) *Limiter {
	l := &Limiter{rl: rate.NewLimiter(rate.Inf, minBurst)}
	l.SetRate(bytesPerSec)
	return l
}

// NewUploadLimiter returns a Limiter for what the BitTorrent library
// uploads (anacrolix's UploadRateLimiter), bytesPerSec (<= 0: none for
// now). The library takes a peer's request for up to the burst in force
// when the limiter's rate is finite, and for any length when it is
// rate.Inf; when it comes to send a request longer than the burst then in
// force, it panics. So an upload limiter's burst is fixed at minBurst
// (peers ask for 16 KiB) and its rate is never rate.Inf: a hostile peer's
// longer request is refused at once, and a limit set or lowered later
// cannot meet a request it cannot send.
func NewUploadLimiter(bytesPerSec int64) *Limiter {
	l := &Limiter{rl: rate.NewLimiter(openRate, minBurst), upload: true}
	l.SetRate(bytesPerSec)
	return l
}

func (l *Limiter) rate() float64 {
	if l == nil {
		return 0
	}
	return math.Float64frombits(l.bits.Load())
}

// Rate is the rate in bytes per second, 0 for none.
func (l *Limiter) Rate() int64 { return int64(l.rate()) }

// RateLimiter is the token bucket itself, for a library that takes a
// *rate.Limiter (anacrolix/torrent's ClientConfig.DownloadRateLimiter).
// Change its rate only through SetRate: the burst must stay at least
// minBurst.
func (l *Limiter) RateLimiter() *rate.Limiter { return l.rl }

// SetRate changes the rate; bytesPerSec <= 0 removes the limit. The bucket
// starts full at the new rate, with no debt carried over from the old one,
// so a lowered limit does not first stall for the debt run up under the
// higher one.
func (l *Limiter) SetRate(bytesPerSec int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	r := float64(max(bytesPerSec, 0))
	open, burst := rate.Inf, burstOf(r)
	if l.upload {
		open, burst = openRate, minBurst
	}
	if r <= 0 {
		l.bits.Store(0)
		l.rl.SetLimit(open) // the burst stays: a read may be under way
		l.gen.Add(1)
		return
	}
	now := time.Now()
	l.rl.SetBurstAt(now, burst)
	// rate.Limiter cannot set its tokens; an instant (1 ns) without a
	// limit fills the bucket to the burst, then the new rate applies.
	l.rl.SetLimitAt(now, open)
	l.rl.SetLimitAt(now.Add(time.Nanosecond), rate.Limit(r))
	l.bits.Store(math.Float64bits(r))
	l.gen.Add(1)
}

// burstOf is the most tokens an idle bucket saves up: a tenth of a
// second's worth, at least minBurst, so a short pause does not turn into a
// spike above the limit.
func burstOf(rate float64) int { return int(min(max(rate/10, minBurst), math.MaxInt32)) }

// chunk is the largest read a connection should make under this limit:
// about 50 ms worth, so bytes flow evenly instead of in large lumps.
func (l *Limiter) chunk(size int) int {
	r := l.rate()
	if r <= 0 {
		return size
	}
	return min(max(int(r/20), 4<<10), size)
}

// wait takes n tokens and blocks until the bucket is out of the debt
// owed up to and including them, or ctx ends. Callers are served in the
// order they paid, whether they are the engine's or the BitTorrent
// library's. A canceled caller returns at once; the bytes it read stay
// paid. A SetRate meanwhile forgives every debt, so the caller returns.
func (l *Limiter) wait(ctx context.Context, n int) error {
	if n <= 0 || l.rate() <= 0 {
		return nil
	}
	gen := l.gen.Load()
	now := time.Now()
	var res *rate.Reservation
	for n > 0 {
		// A reservation is at most the burst; one cut to a burst that
		// SetRate lowered meanwhile is refused, and taken again.
		k := min(n, l.rl.Burst())
		if r := l.rl.ReserveN(now, k); r.OK() {
			res, n = r, n-k
		}
	}
	for d := res.DelayFrom(now); d > 0; d = res.DelayFrom(time.Now()) {
		t := time.NewTimer(min(d, maxWait))
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		}
		if l.gen.Load() != gen {
			return nil
		}
	}
	return nil
}
