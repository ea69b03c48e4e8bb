package engine

import (
	"context"
	"fmt"
	"testing"
	"time"

	"braid/engine/mirrortest"
	"braid/internal/testkit"
)

// runAll downloads n copies of data named prefixN.bin side by side from
// the mirrors and checks that each arrives whole.
func runAll(t *testing.T, c *Client, n int, prefix string, data []byte, batch bool, ms ...*mirrortest.Mirror) {
	t.Helper()
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var dls []*Download
	for i := range n {
		f := fileFor(fmt.Sprintf("%s%d.bin", prefix, i), data, 64<<10, urls(ms...)...)
		dls = append(dls, c.Do(ctx, &Request{Dir: dir, File: f, Batch: batch}))
	}
	for i, dl := range dls {
		if err := dl.Err(); err != nil {
			t.Fatalf("file %d: %v", i, err)
		}
		wantFile(t, dir, fmt.Sprintf("%s%d.bin", prefix, i), data)
	}
}

// Files downloading side by side share one per-host cap: each file takes
// one connection to its mirror, six files on a mirror would take six, and
// the Client allows three per host, whichever files they are for. Each
// file has one mirror, so no connection is ever cut to hand its work to
// another (a cut response lingers on the server until it notices, and
// would blur the count).
func TestPerHostCapAcrossFiles(t *testing.T) {
	t.Parallel()
	data := testkit.Data(1<<20 + 333)
	a := mirrortest.New(t, data, mirrortest.Addr("127.0.0.2"), mirrortest.Rate(2<<20))
	b := mirrortest.New(t, data, mirrortest.Addr("127.0.0.3"), mirrortest.Rate(2<<20))
	c := &Client{MaxConnsPerHost: 3, StallTimeout: time.Minute}
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var dls []*Download
	for i := range 12 {
		m := []*mirrortest.Mirror{a, b}[i%2]
		dls = append(dls, c.Do(ctx, &Request{Dir: dir, File: fileFor(fmt.Sprintf("f%d.bin", i), data, 64<<10, m.URL())}))
	}
	for i, dl := range dls {
		if err := dl.Err(); err != nil {
			t.Fatalf("file %d: %v", i, err)
		}
		wantFile(t, dir, fmt.Sprintf("f%d.bin", i), data)
	}
	for _, m := range []*mirrortest.Mirror{a, b} {
		// Three at once proves files shared the mirror (one file opens
		// one); more than three breaks the cap.
		if p := m.InFlight().Peak(); p != 3 {
			t.Errorf("mirror %s: at most %d requests at once, want exactly the per-host cap 3", m.Host(), p)
		}
	}
}

// A batch's small files come whole, in one request each, from one mirror,
// on kept-alive connections, and the per-host cap spreads them over the
// mirrors.
func TestBatchSmallFilesWhole(t *testing.T) {
	t.Parallel()
	data := testkit.Data(300<<10 + 7)
	a := mirrortest.New(t, data, mirrortest.Addr("127.0.0.2"), mirrortest.Rate(1<<20))
	b := mirrortest.New(t, data, mirrortest.Addr("127.0.0.3"), mirrortest.Rate(1<<20))
	const n = 8
	runAll(t, &Client{MaxConnsPerHost: 2}, n, "s", data, true, a, b)
	// Kept-alive connections carry file after file: no more connections
	// than the cap allows at once.
	if got := a.Conns() + b.Conns(); got > 4 {
		t.Errorf("%d connections opened for %d files, want at most 2 per mirror (kept alive)", got, n)
	}
	if got := a.Requests() + b.Requests(); got != n {
		t.Errorf("%d requests for %d small files, want one each", got, n)
	}
	if a.Requests() == 0 || b.Requests() == 0 {
		t.Errorf("requests per mirror %d and %d: the batch was not spread", a.Requests(), b.Requests())
	}
	for _, m := range []*mirrortest.Mirror{a, b} {
		if p := m.InFlight().Peak(); p > 2 {
			t.Errorf("mirror %s: %d requests at once, over the per-host cap 2", m.Host(), p)
		}
	}
}

// SetLimit reaches a running download: its rate under a limit stays near
// the limit, and once the limit is lifted the rest comes much faster. The
// bounds are generous (a loaded machine): what is measured is bytes the
// mirror served over a window, not how long a step took.
//
// Not parallel: it measures throughput and wants the lifted limit
// exceeded, which tests beside it on the same cores could keep it from.
func TestSetLimitWhileRunning(t *testing.T) {
	data := testkit.Data(32 << 20)
	m := mirrortest.New(t, data, mirrortest.Addr("127.0.0.2"))
	const limit = 1 << 20
	c := &Client{Limit: limit}
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	dl := c.Do(ctx, &Request{Dir: dir, File: fileFor("big.bin", data, 1<<20, m.URL())})
	time.Sleep(time.Second) // past the start and the socket buffers filling
	b0, t0 := m.BytesServed(), time.Now()
	time.Sleep(2 * time.Second)
	limited := float64(m.BytesServed()-b0) / time.Since(t0).Seconds()
	if limited > 2.5*limit {
		t.Errorf("%.0f bytes/s under a limit of %d", limited, limit)
	}
	if got := c.Limits().Limit; got != limit {
		t.Errorf("Limits().Limit = %d, want %d", got, limit)
	}
	b1, t1 := m.BytesServed(), time.Now()
	c.SetLimit(0)
	if err := dl.Err(); err != nil {
		t.Fatal(err)
	}
	free := float64(m.BytesServed()-b1) / time.Since(t1).Seconds()
	if free < 4*limit {
		t.Errorf("%.0f bytes/s after the limit was lifted, want well over the old %d", free, limit)
	}
	wantFile(t, dir, "big.bin", data)
}

// Lowering MaxConns while connections run cuts the newest down to the new
// cap; their pieces are fetched again and the file still verifies.
func TestSetMaxConnsWhileRunning(t *testing.T) {
	t.Parallel()
	data := testkit.Data(8<<20 + 5)
	m := mirrortest.New(t, data, mirrortest.Addr("127.0.0.2"), mirrortest.Rate(1<<20))
	c := &Client{MaxConns: 4, MaxConnsPerMirror: 4}
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	dl := c.Do(ctx, &Request{Dir: dir, File: fileFor("f.bin", data, 256<<10, m.URL())})
	if !testkit.Eventually(30*time.Second, func() bool { return m.InFlight().Now() == 4 }) {
		t.Fatalf("never 4 requests at once (now %d)", m.InFlight().Now())
	}
	c.SetMaxConns(1)
	if !testkit.Eventually(30*time.Second, func() bool { return m.InFlight().Now() <= 1 }) {
		t.Fatalf("%d requests at once after the cap was lowered to 1", m.InFlight().Now())
	}
	c.SetMaxConns(3)
	if err := dl.Err(); err != nil {
		t.Fatal(err)
	}
	wantFile(t, dir, "f.bin", data)
	if l := c.Limits(); l.MaxConns != 3 || l.MaxConnsPerMirror != 4 || l.MaxConnsPerHost != DefaultMaxConnsPerHost {
		t.Errorf("Limits() = %+v", l)
	}
}

// Raising MaxConnsPerMirror while a file downloads lets it open more
// connections to its mirror.
func TestSetMaxConnsPerMirrorWhileRunning(t *testing.T) {
	t.Parallel()
	data := testkit.Data(6<<20 + 1)
	m := mirrortest.New(t, data, mirrortest.Addr("127.0.0.2"), mirrortest.Rate(1<<20))
	c := &Client{}
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	dl := c.Do(ctx, &Request{Dir: dir, File: fileFor("f.bin", data, 256<<10, m.URL())})
	if !testkit.Eventually(30*time.Second, func() bool { return m.InFlight().Now() == 1 }) {
		t.Fatal("the download never started")
	}
	c.SetMaxConnsPerMirror(3)
	if !testkit.Eventually(30*time.Second, func() bool { return m.InFlight().Now() == 3 }) {
		t.Errorf("%d requests at once after the per-mirror cap was raised to 3", m.InFlight().Now())
	}
	if err := dl.Err(); err != nil {
		t.Fatal(err)
	}
	wantFile(t, dir, "f.bin", data)
}

// Below any cap, a batch's small files still spread: each goes to the
// mirror whose host is least busy.
func TestBatchSpreadsBelowCap(t *testing.T) {
	t.Parallel()
	data := testkit.Data(200<<10 + 1)
	a := mirrortest.New(t, data, mirrortest.Addr("127.0.0.2"), mirrortest.Rate(1<<20))
	b := mirrortest.New(t, data, mirrortest.Addr("127.0.0.3"), mirrortest.Rate(1<<20))
	runAll(t, &Client{MaxConnsPerHost: 16}, 6, "s", data, true, a, b)
	if a.Requests() < 2 || b.Requests() < 2 {
		t.Errorf("requests per mirror %d and %d: the batch was not spread", a.Requests(), b.Requests())
	}
}
