package engine

import (
	"context"
	"testing"
	"time"

	"braid/engine/ftptest"
	"braid/engine/mirrortest"
	"braid/internal/testkit"
)

// servedRate is the bytes per second mirrors served over window, measured
// after a second for the start and the socket buffers filling.
func servedRate(window time.Duration, ms ...*mirrortest.Mirror) float64 {
	served := func() (n int64) {
		for _, m := range ms {
			n += m.BytesServed()
		}
		return n
	}
	time.Sleep(time.Second)
	b0, t0 := served(), time.Now()
	time.Sleep(window)
	return float64(served()-b0) / time.Since(t0).Seconds()
}

// running fails t when dl has ended: a window measured after the end says
// nothing about the limit.
func running(t *testing.T, dl *Download) {
	t.Helper()
	select {
	case <-dl.Done():
		t.Fatalf("the download ended while its limit was measured (%v): the limit did not hold", dl.Err())
	default:
	}
}

// A download's own limit holds on top of the Client's, for the sum of
// the downloads that share it (two files of one job); a change of it
// reaches the running connections, which go on where they were: no
// request starts again from a file's first byte and no byte is fetched
// twice. The bounds are generous (a loaded machine): what is measured is
// bytes the mirrors served over a window, an upper bound, not how long a
// step took.
func TestRequestLimiterWhileRunning(t *testing.T) {
	t.Parallel()
	const limit = 512 << 10
	a, b := testkit.Data(24<<20), testkit.Data(24<<20+1)
	ma := mirrortest.New(t, a, mirrortest.Addr("127.0.0.2"))
	mb := mirrortest.New(t, b, mirrortest.Addr("127.0.0.3"))
	c := &Client{}
	job := NewLimiter(limit)
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	da := c.Do(ctx, &Request{Dir: dir, File: fileFor("a.bin", a, 1<<20, ma.URL()), Limiter: job})
	db := c.Do(ctx, &Request{Dir: dir, File: fileFor("b.bin", b, 1<<20, mb.URL()), Limiter: job})
	if got := servedRate(2*time.Second, ma, mb); got > 2.5*limit {
		t.Errorf("%.0f bytes/s for two downloads under one limit of %d", got, limit)
	}
	running(t, da)
	running(t, db)
	job.SetRate(2 * limit)
	if got := servedRate(2*time.Second, ma, mb); got > 2.5*2*limit {
		t.Errorf("%.0f bytes/s after the limit was raised to %d", got, 2*limit)
	}
	running(t, da)
	running(t, db)
	job.SetRate(0)
	for _, dl := range []*Download{da, db} {
		if err := dl.Err(); err != nil {
			t.Fatal(err)
		}
	}
	wantFile(t, dir, "a.bin", a)
	wantFile(t, dir, "b.bin", b)
	for m, size := range map[*mirrortest.Mirror]int{ma: len(a), mb: len(b)} {
		n := 0
		for _, r := range m.Ranges() {
			if r.Method == "GET" && r.Off == 0 {
				n++
			}
		}
		if n != 1 {
			t.Errorf("mirror %s: %d requests from the first byte, want 1 (%+v)", m.Host(), n, m.Ranges())
		}
		if m.BytesServed() != int64(size) {
			t.Errorf("mirror %s served %d bytes for a file of %d", m.Host(), m.BytesServed(), size)
		}
	}
}

// A download's limit above the Client's does not lift the Client's: the
// lower holds.
func TestRequestLimiterOnTopOfTheClients(t *testing.T) {
	t.Parallel()
	const limit = 512 << 10
	data := testkit.Data(16 << 20)
	m := mirrortest.New(t, data, mirrortest.Addr("127.0.0.2"))
	c := &Client{Limit: limit}
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	dl := c.Do(ctx, &Request{Dir: dir, File: fileFor("f.bin", data, 1<<20, m.URL()), Limiter: NewLimiter(16 * limit)})
	if got := servedRate(2*time.Second, m); got > 2.5*limit {
		t.Errorf("%.0f bytes/s under a Client limit of %d", got, limit)
	}
	running(t, dl)
	c.SetLimit(0)
	if err := dl.Err(); err != nil {
		t.Fatal(err)
	}
	wantFile(t, dir, "f.bin", data)
}

// An FTP download's own limit holds and can be lifted while it runs, as
// an HTTP one's: the transfer goes on from where it was (one RETR from
// the first byte).
func TestRequestLimiterFTP(t *testing.T) {
	t.Parallel()
	const limit = 512 << 10
	data := testkit.Data(16 << 20)
	srv := ftptest.New(t, ftptest.File("pub/f.bin", data))
	c := &Client{}
	lim := NewLimiter(limit)
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	dl := c.Do(ctx, &Request{Dir: dir, File: fileFor("f.bin", data, 1<<20, srv.URL("pub/f.bin")), Limiter: lim})
	read := func() (n int64) {
		for _, m := range dl.Snapshot().Mirrors {
			n += m.Bytes
		}
		return n
	}
	time.Sleep(time.Second)
	b0, t0 := read(), time.Now()
	time.Sleep(2 * time.Second)
	if got := float64(read()-b0) / time.Since(t0).Seconds(); got > 2.5*limit {
		t.Errorf("%.0f bytes/s from FTP under a limit of %d", got, limit)
	}
	running(t, dl)
	lim.SetRate(0)
	if err := dl.Err(); err != nil {
		t.Fatal(err)
	}
	wantFile(t, dir, "f.bin", data)
	fromStart := 0
	for _, r := range srv.Retrs() {
		if r.Offset == 0 {
			fromStart++
		}
	}
	if fromStart != 1 {
		t.Errorf("%d RETRs from the first byte, want 1: %+v", fromStart, srv.Retrs())
	}
}

// A download's limit lowered far below what its connection was reading
// (large reads, under no limit) holds it back without the connection
// counting as stalled: nothing is cut, no piece is asked for again, the
// file ends whole. The mirror serves each byte once.
func TestRequestLimiterLoweredSharply(t *testing.T) {
	t.Parallel()
	const pl = 256 << 10
	data := testkit.Data(8 << 20)
	m := mirrortest.New(t, data, mirrortest.Addr("127.0.0.2"), mirrortest.Rate(4<<20))
	c := &Client{StallTimeout: 500 * time.Millisecond}
	lim := NewLimiter(0)
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	dl := c.Do(ctx, &Request{Dir: dir, File: fileFor("f.bin", data, pl, m.URL()), Limiter: lim})
	if !testkit.Eventually(20*time.Second, func() bool { return m.BytesServed() > 1<<20 }) {
		t.Fatal("the download did not start")
	}
	// 16 KiB/s: a read of the 256 KiB the connection asked for under no
	// limit would be paid for over 8 s, far past the stall timeout.
	lim.SetRate(16 << 10)
	time.Sleep(3 * time.Second)
	running(t, dl)
	lim.SetRate(0)
	if err := dl.Err(); err != nil {
		t.Fatal(err)
	}
	wantFile(t, dir, "f.bin", data)
	for _, mi := range dl.Snapshot().Mirrors {
		if mi.Strikes > 0 {
			t.Errorf("mirror %s has %d strikes", mi.URL, mi.Strikes)
		}
	}
	if n := m.BytesServed(); n != int64(len(data)) {
		t.Errorf("the mirror served %d bytes for a file of %d: a connection was cut and its piece asked for again (%+v)", n, len(data), m.Ranges())
	}
}
