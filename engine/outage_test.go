package engine

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"braid/engine/mirrortest"
	"braid/internal/testkit"
)

// waitFor polls the download until ok holds for a snapshot, failing the
// test if the download ends first or a generous time passes.
func waitFor(t *testing.T, dl *Download, what string, ok func(Snapshot) bool) Snapshot {
	t.Helper()
	tk := time.NewTicker(20 * time.Millisecond)
	defer tk.Stop()
	deadline := time.After(60 * time.Second)
	for {
		select {
		case <-tk.C:
			if s := dl.Snapshot(); ok(s) {
				return s
			}
		case <-dl.Done():
			t.Fatalf("download ended (%v) before %s", dl.Err(), what)
		case <-deadline:
			t.Fatalf("no %s after a minute: %+v", what, dl.Snapshot().State)
		}
	}
}

// The only mirror goes away for longer than every back-off, then comes
// back: the download waits, visibly, and finishes.
func TestOutageLongerThanBackoff(t *testing.T) {
	t.Parallel()
	data := testkit.Data(3 << 20)
	m := mirrortest.New(t, data, addr(0), mirrortest.Rate(2<<20))
	dir := t.TempDir()
	c := &Client{StallTimeout: 200 * time.Millisecond, MaxBackoff: 100 * time.Millisecond}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	dl := c.Do(ctx, &Request{Dir: dir, File: fileFor("f.bin", data, 64<<10, m.URL())})
	waitFor(t, dl, "bytes", func(s Snapshot) bool { return s.Bytes > 0 })
	m.Pause()
	s := waitFor(t, dl, "the waiting state", func(s Snapshot) bool { return s.State == StateWaiting })
	if s.NextTry.IsZero() {
		t.Errorf("waiting without a next try time")
	}
	// Stay down through many back-offs: at least ten of the capped ones.
	tries := map[time.Time]bool{}
	waitFor(t, dl, "ten tries", func(s Snapshot) bool {
		if s.State == StateWaiting && !s.NextTry.IsZero() {
			tries[s.NextTry] = true
		}
		return len(tries) >= 10
	})
	ms := dl.Snapshot().Mirrors[0]
	if ms.State == MirrorDropped {
		t.Fatalf("mirror dropped during an outage: %s", ms.Reason)
	}
	m.Resume()
	if err := dl.Err(); err != nil {
		t.Fatal(err)
	}
	wantFile(t, dir, "f.bin", data)
}

// RetryFor bounds the wait: a mirror that never comes back fails the
// download with ErrGaveUp, naming why it kept failing.
func TestRetryForGivesUp(t *testing.T) {
	t.Parallel()
	data := testkit.Data(1 << 20)
	m := mirrortest.New(t, data, addr(0), mirrortest.Down())
	dir := t.TempDir()
	c := &Client{MaxBackoff: 50 * time.Millisecond}
	_, err := get(t, c, &Request{Dir: dir, File: fileFor("f.bin", data, 64<<10, m.URL()), RetryFor: 500 * time.Millisecond})
	if !errors.Is(err, ErrGaveUp) || !strings.Contains(err.Error(), "refused") {
		t.Fatalf("err = %v, want ErrGaveUp naming the refused connection", err)
	}
	// The mirror is named once: its reason (the transport's error, which
	// begins with its URL) does not follow the URL again.
	if n := strings.Count(err.Error(), m.URL()); n != 1 {
		t.Errorf("err = %v: names the mirror %d times, want once", err, n)
	}
	noFile(t, dir, "f.bin")
}

// Temporary answers (5xx, 429 with Retry-After) never drop a mirror, and
// evidence against it (401, 403, 404) always does, at once.
func TestTransientVersusPermanent(t *testing.T) {
	t.Parallel()
	data := testkit.Data(1 << 20)
	for _, tc := range []struct {
		status int
		drop   bool
	}{
		{http.StatusInternalServerError, false},
		{http.StatusBadGateway, false},
		{http.StatusTooManyRequests, false},
		{http.StatusServiceUnavailable, false},
		{http.StatusUnauthorized, true},
		{http.StatusForbidden, true},
		{http.StatusNotFound, true},
		{http.StatusGone, true},
	} {
		t.Run(http.StatusText(tc.status), func(t *testing.T) {
			bad := mirrortest.New(t, data, addr(0), mirrortest.Status(tc.status), mirrortest.RetryAfter("0"))
			good := mirrortest.New(t, data, addr(1), mirrortest.Rate(1<<20))
			dir := t.TempDir()
			c := &Client{MaxBackoff: 20 * time.Millisecond}
			snap, err := get(t, c, &Request{Dir: dir, File: fileFor("f.bin", data, 64<<10, bad.URL(), good.URL())})
			if err != nil {
				t.Fatal(err)
			}
			wantFile(t, dir, "f.bin", data)
			ms := mirrorByURL(t, snap, bad.URL())
			if dropped := ms.State == MirrorDropped; dropped != tc.drop {
				t.Fatalf("mirror answering %d: %s (%s), want dropped %v", tc.status, ms.State, ms.Reason, tc.drop)
			}
			if !tc.drop && bad.Requests() < 3 {
				t.Fatalf("mirror answering %d asked %d times; want it tried again and again", tc.status, bad.Requests())
			}
		})
	}
}

// A download that every mirror refuses names each mirror once, with its
// reason.
func TestNoMirrorsNamesEachOnce(t *testing.T) {
	t.Parallel()
	data := testkit.Data(1 << 20)
	a := mirrortest.New(t, data, addr(0), mirrortest.Status(http.StatusNotFound))
	b := mirrortest.New(t, data, addr(1), mirrortest.Status(http.StatusGone))
	dir := t.TempDir()
	_, err := get(t, &Client{}, &Request{Dir: dir, File: fileFor("f.bin", data, 64<<10, a.URL(), b.URL())})
	if !errors.Is(err, ErrNoMirrors) {
		t.Fatalf("err = %v, want ErrNoMirrors", err)
	}
	for _, u := range []string{a.URL(), b.URL()} {
		if n := strings.Count(err.Error(), u); n != 1 {
			t.Errorf("err = %v: names %s %d times, want once", err, u, n)
		}
	}
	noFile(t, dir, "f.bin")
}

// The back-off doubles with each failure in a row, never beyond the cap
// nor below half of it once there, and starts over once bytes arrive.
func TestBackoffCappedWithJitter(t *testing.T) {
	t.Parallel()
	now := time.Now()
	m := &mirror{}
	const limit = 8 * time.Second
	var last time.Duration
	for i := 1; i <= 12; i++ {
		m.fails = i
		m.backoff(now, 0, limit, "refused")
		wait := m.retryAt.Sub(now)
		want := min(retryBase<<(i-1), limit)
		if wait > want || wait < want/2 {
			t.Fatalf("failure %d: waits %v, want within [%v, %v]", i, wait, want/2, want)
		}
		last = wait
	}
	if last < limit/2 {
		t.Fatalf("capped wait %v below half the cap", last)
	}
	m.fails = 0
	m.backoff(now, 0, limit, "refused")
	if wait := m.retryAt.Sub(now); wait > retryBase {
		t.Fatalf("after bytes arrived the wait is %v, want at most %v", wait, retryBase)
	}
	m.backoff(now, 3*time.Second, limit, "429")
	if wait := m.retryAt.Sub(now); wait != 3*time.Second {
		t.Fatalf("Retry-After 3s gave a wait of %v", wait)
	}
}

// A slow mirror may go longer without a byte than a fast one before it is
// called stalled.
func TestStallLimitFollowsSpeed(t *testing.T) {
	t.Parallel()
	d := &download{c: &Client{StallTimeout: time.Second, MaxBackoff: time.Minute}}
	fast, slow, unknown := &mirror{rate: 50 << 20}, &mirror{rate: 16 << 10}, &mirror{}
	if got := d.stallLimit(fast); got != time.Second {
		t.Errorf("fast mirror: %v, want the stall timeout", got)
	}
	if got := d.stallLimit(unknown); got != time.Second {
		t.Errorf("unmeasured mirror: %v, want the stall timeout", got)
	}
	if got := d.stallLimit(slow); got < 10*time.Second || got > time.Minute {
		t.Errorf("16 KiB/s mirror: %v, want the time a few packets take at its speed", got)
	}
}
