package engine

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/time/rate"
)

// payFor runs callers goroutines that each pay for reads of the given
// sizes in turn, as connections do, until stop closes; it returns the
// bytes paid for, read after every caller has returned.
func payFor(l *Limiter, callers int, sizes []int, stop <-chan struct{}) func() int64 {
	var paid atomic.Int64
	var wg sync.WaitGroup
	ctx, cancel := context.WithCancel(context.Background())
	for g := range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := g; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				n := sizes[i%len(sizes)]
				if l.wait(ctx, n) != nil {
					return
				}
				paid.Add(int64(n))
			}
		}()
	}
	return func() int64 {
		cancel()
		wg.Wait()
		return paid.Load()
	}
}

// Many callers with reads small and far larger than the burst together
// get about the limit: never more than it allows over the window (the
// burst and one read per caller in flight aside, with a margin for a
// loaded machine), and a clear part of it.
//
// Not parallel: it measures what eight callers get paid in three seconds,
// a floor that tests beside it on the same cores could push it under.
func TestLimiterHoldsForTheSum(t *testing.T) {
	const limit = 2 << 20
	l := NewLimiter(limit)
	// The burst is 205 kB: the last two are paid in several parts.
	sizes := []int{1, 4 << 10, 16 << 10, 100 << 10, 300 << 10, 1 << 20}
	stop := make(chan struct{})
	start := time.Now()
	done := payFor(l, 8, sizes, stop)
	time.Sleep(3 * time.Second)
	close(stop)
	paid := done()
	el := time.Since(start).Seconds()
	// A read counts once its wait is over, and a wait is over only when
	// the bucket is out of debt, this read included.
	ceiling := limit*el*1.3 + float64(burstOf(limit))
	t.Logf("paid %d bytes in %.1fs: %.2f of the limit", paid, el, float64(paid)/(limit*el))
	if float64(paid) > ceiling {
		t.Fatalf("paid %d bytes in %.1fs under %d B/s, ceiling %.0f", paid, el, limit, ceiling)
	}
	// The reads still waiting when stopped (up to 1 MiB each) are not
	// counted: the floor leaves room for them.
	if floor := limit * el / 4; float64(paid) < floor {
		t.Fatalf("paid %d bytes in %.1fs under %d B/s, want at least %.0f", paid, el, limit, floor)
	}
}

// A caller that waits out a long debt sees a raised, removed or lowered
// limit at once (within maxWait), not after the debt it ran up at the old
// rate; a canceled one returns at once with the context's error.
func TestLimiterWaiterSeesChanges(t *testing.T) {
	t.Parallel()
	// 4 MiB at 16 KiB/s: over four minutes of debt.
	const slow, debt = 16 << 10, 4 << 20
	for _, tc := range []struct {
		name   string
		change func(l *Limiter, cancel context.CancelFunc)
		want   error
	}{
		{"raised", func(l *Limiter, _ context.CancelFunc) { l.SetRate(1 << 30) }, nil},
		{"removed", func(l *Limiter, _ context.CancelFunc) { l.SetRate(0) }, nil},
		{"lowered", func(l *Limiter, _ context.CancelFunc) { l.SetRate(slow / 2) }, nil},
		{"canceled", func(_ *Limiter, cancel context.CancelFunc) { cancel() }, context.Canceled},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := NewLimiter(slow)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			errc := make(chan error, 1)
			go func() { errc <- l.wait(ctx, debt) }()
			time.Sleep(2 * maxWait) // the caller is asleep on its debt
			select {
			case err := <-errc:
				t.Fatalf("wait returned %v before any change, with minutes of debt", err)
			default:
			}
			tc.change(l, cancel)
			select {
			case err := <-errc:
				if !errors.Is(err, tc.want) {
					t.Fatalf("wait: %v, want %v", err, tc.want)
				}
			case <-time.After(time.Minute): // generous; the debt is four
				t.Fatal("the waiting caller did not see the change")
			}
		})
	}
}

// No limit costs no waiting and no tokens; a nil Limiter is no limit.
func TestLimiterNone(t *testing.T) {
	t.Parallel()
	var none *Limiter
	if err := none.wait(context.Background(), 1<<30); err != nil || none.Rate() != 0 || none.chunk(1<<20) != 1<<20 {
		t.Fatalf("nil limiter: %v, rate %d", err, none.Rate())
	}
	l := NewLimiter(0)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	// Even a canceled context: there is nothing to wait for.
	if err := l.wait(ctx, 1<<30); err != nil {
		t.Fatal(err)
	}
	if l.RateLimiter().Limit() != rate.Inf {
		t.Fatalf("library limit %v, want none", l.RateLimiter().Limit())
	}
}

// The burst is a tenth of a second, never below minBurst, and a read the
// library cut to the burst in force when it started can always be paid
// for after the rate drops (anacrolix/torrent panics otherwise).
func TestLimiterBurst(t *testing.T) {
	t.Parallel()
	l := NewLimiter(100 << 20)
	rl := l.RateLimiter()
	if got := rl.Burst(); got != 10<<20 {
		t.Fatalf("burst %d at 100 MiB/s, want a tenth of a second", got)
	}
	for _, r := range []int64{10 << 20, 1 << 20, 16 << 10, 1, 0, 64 << 10} {
		// A peer connection's read: at most 128 KiB, cut to the burst.
		n := min(128<<10, rl.Burst())
		l.SetRate(r)
		if got := rl.Burst(); got < minBurst {
			t.Fatalf("burst %d at %d B/s, below %d", got, r, minBurst)
		}
		if res := rl.ReserveN(time.Now(), n); !res.OK() {
			t.Fatalf("a %d-byte read begun before the rate fell to %d cannot be paid for", n, r)
		}
	}
	if got := l.Rate(); got != 64<<10 {
		t.Fatalf("rate %d after SetRate(64 KiB)", got)
	}
}

// The cost of a read's wait: nothing without a limit (the engine's usual
// case), a little under one far above what is read.
func BenchmarkLimiterWait(b *testing.B) {
	for _, bc := range []struct {
		name string
		rate int64
	}{{"none", 0}, {"limited", 1 << 40}} {
		b.Run(bc.name, func(b *testing.B) {
			l := NewLimiter(bc.rate)
			ctx := context.Background()
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if err := l.wait(ctx, 32<<10); err != nil {
						b.Fatal(err)
					}
				}
			})
		})
	}
}

// An upload limiter keeps one burst whatever its rate, and is never
// rate.Inf: the BitTorrent library takes requests up to the burst it
// sees, and must be able to send every one it took after any change.
func TestUploadLimiterBurstFixed(t *testing.T) {
	t.Parallel()
	l := NewUploadLimiter(0)
	for _, r := range []int64{0, 10e6, 100e3, 1 << 30, 0, 1} {
		l.SetRate(r)
		rl := l.RateLimiter()
		if rl.Limit() == rate.Inf {
			t.Fatalf("rate %d: the library would take a request of any length", r)
		}
		if rl.Burst() != minBurst {
			t.Fatalf("rate %d: burst %d, want %d", r, rl.Burst(), minBurst)
		}
		if got := l.Rate(); got != max(r, 0) {
			t.Fatalf("Rate() = %d after SetRate(%d)", got, r)
		}
	}
	// No limit lets a burst through at once.
	l.SetRate(0)
	if d := l.RateLimiter().ReserveN(time.Now(), minBurst).Delay(); d > time.Millisecond {
		t.Fatalf("no limit: a burst waits %v", d)
	}
}
