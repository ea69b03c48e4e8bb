package torrent

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"runtime"
	"testing"
	"time"

	"braid/engine"
	"braid/engine/metalink"
	"braid/engine/mirrortest"
)

// received is what each download has read so far: the HTTP download's
// body bytes and the torrent's piece data from peers, both counted by the
// receiver as they are read, before the wait the limit imposes.
func received(dl *engine.Download, j *Job) (http, bt int64) {
	for _, m := range dl.Snapshot().Mirrors {
		http += m.Bytes
	}
	return http, j.Snapshot().Mirrors[0].Bytes
}

// One download limit holds for an HTTP download and a torrent running at
// once, and a change of it reaches both: what they read together over a
// window stays within the limit (a generous margin for a loaded machine,
// the burst and a read per connection aside), each gets a clear share,
// and after the limit is raised together they go past the old one, each
// with a share, while their sum stays within the new one.
//
// Not parallel: it measures throughput and wants the raised limit reached,
// which tests beside it on the same cores could keep it from.
func TestOneLimitForHTTPAndTorrent(t *testing.T) {
	if runtime.GOOS == "windows" {
		// Seen under Wine on an idle machine: the HTTP download took the
		// whole raised limit for 3 s and the torrent none. The limit is
		// the same code on every system; its shares are measured here
		// on Linux, where the scheduler gives steady rates.
		t.Skip("measures two downloads' shares of one limit over 3 s, which Wine's scheduling does not give steadily; the limiter is the same code on every system")
	}
	const limit = 1 << 20
	httpData := randomBytes(t, 32<<20)
	m := mirrortest.New(t, httpData, mirrortest.Addr("127.0.0.2"))
	sum := sha256.Sum256(httpData)
	hc := &engine.Client{Limit: limit}

	src := t.TempDir()
	btData := randomBytes(t, 32<<20+5)
	mi := makeTorrent(t, src, "bt.bin", []testFile{{Path: "", Data: btData}})
	addr := seeder(t, src, mi)
	tc := NewClient(Config{ListenHost: "127.0.0.1", Logger: discard, Downloads: hc.DownloadLimiter()})
	t.Cleanup(func() { tc.Close() })
	spec := specOf(t, mi)
	spec.Peers = []string{addr}

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	dl := hc.Do(ctx, &engine.Request{Dir: t.TempDir(), File: metalink.File{
		Name: "http.bin", Size: int64(len(httpData)),
		Hashes: []metalink.Hash{{Type: "sha-256", Value: hex.EncodeToString(sum[:])}},
		URLs:   []metalink.URL{{URL: m.URL(), Priority: 1}},
	}})
	defer dl.Cancel()
	j, err := tc.Start(ctx, &Request{Dir: t.TempDir(), Spec: spec})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Stop()

	// window measures what both read over d, in bytes per second.
	window := func(d time.Duration) (http, bt, el float64) {
		h0, b0 := received(dl, j)
		t0 := time.Now()
		time.Sleep(d)
		h1, b1 := received(dl, j)
		el = time.Since(t0).Seconds()
		return float64(h1-h0) / el, float64(b1-b0) / el, el
	}
	// check measures windows of 3 s: in each the sum stays within rate,
	// and one of them, of at most five, gives each a share. The test's
	// seeder (anacrolix v1.59.1) now and then holds a peer's requests
	// for seconds (seen: 11 requests held, nothing sent for 4.3 s, one
	// run in 66 with six runs at once), which starves the torrent for a
	// window, not for five; a limit that starves one of them starves it
	// in every window.
	check := func(what string, rate float64) {
		t.Helper()
		var http, bt float64
		for range 5 {
			var el float64
			http, bt, el = window(3 * time.Second)
			t.Logf("%s: HTTP %.0f B/s + torrent %.0f B/s = %.2f of %.0f B/s", what, http, bt, (http+bt)/rate, rate)
			// The burst, and per connection one read (the torrent's up
			// to 128 KiB, the engine's 50 ms worth), over the window.
			slack := (float64(engine.NewLimiter(int64(rate)).RateLimiter().Burst()) + 4*128<<10) / el
			if http+bt > rate*1.3+slack {
				t.Errorf("%s: together %.0f B/s under a limit of %.0f", what, http+bt, rate)
			}
			if http >= rate/20 && bt >= rate/20 {
				return
			}
		}
		t.Errorf("%s: HTTP %.0f B/s, torrent %.0f B/s: one of them is starved", what, http, bt)
	}

	// Wait until both are under way: the torrent has its peer.
	for deadline := time.Now().Add(time.Minute); ; {
		if h, b := received(dl, j); h > 0 && b > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the two downloads did not both start")
		}
		time.Sleep(50 * time.Millisecond)
	}
	time.Sleep(time.Second) // past the first burst
	check("at 1 MiB/s", limit)

	const raised = 4 * limit
	hc.SetLimit(raised)
	if got, _ := tc.Limits(); got != raised {
		t.Fatalf("the torrent client's limit is %d after the HTTP client's changed to %d", got, raised)
	}
	// The raised limit reaches them: since the raise they have read
	// together more than the old limit could have let through. How they
	// share the new one is up to the scheduler (under load one took 3/4
	// of it); each keeps a share (check).
	oldSlack := float64(engine.NewLimiter(limit).RateLimiter().Burst() + 4*128<<10)
	pastLimit(t, func() int64 { h, b := received(dl, j); return h + b }, limit, oldSlack, "the two")
	time.Sleep(time.Second) // past the new limit's first burst
	check("raised to 4 MiB/s", raised)

	// The torrent client's SetLimits is the same one limit.
	tc.SetLimits(0, 0)
	if got := hc.Limits().Limit; got != 0 {
		t.Fatalf("the HTTP client's limit is %d after the torrent client lifted it", got)
	}
	if err := dl.Err(); err != nil {
		t.Fatal(err)
	}
	if err := j.Err(); err != nil {
		t.Fatal(err)
	}
	sameFile(t, j.req.Dir, "bt.bin", btData)
}

// Clients given the same budgets (braid get makes one per torrent) share
// them: a change made through one is the limit of all.
func TestClientsShareBudgets(t *testing.T) {
	t.Parallel()
	down, up := engine.NewLimiter(1<<20), engine.NewLimiter(256<<10)
	a := NewClient(Config{ListenHost: "127.0.0.1", Logger: discard, Downloads: down, Uploads: up, DownloadLimit: 5, UploadLimit: 5})
	b := NewClient(Config{ListenHost: "127.0.0.1", Logger: discard, Downloads: down, Uploads: up})
	t.Cleanup(func() { a.Close(); b.Close() })
	if d, u := a.Limits(); d != 1<<20 || u != 256<<10 {
		t.Fatalf("limits %d, %d: the shared budgets' rates, not DownloadLimit and UploadLimit, want %d, %d", d, u, 1<<20, 256<<10)
	}
	a.SetLimits(2<<20, 0)
	if d, u := b.Limits(); d != 2<<20 || u != 0 {
		t.Fatalf("the other client's limits %d, %d after one changed them to %d, none", d, u, 2<<20)
	}
	b.SetUploadLimit(64 << 10)
	if d, u := a.Limits(); d != 2<<20 || u != 64<<10 {
		t.Fatalf("limits %d, %d after the upload limit alone changed to %d", d, u, 64<<10)
	}
}

// A limit lowered sharply while pieces stream in at a high one, again
// and again, neither panics the library (a read begun under the high
// limit's burst is paid for under the low one's) nor spoils the file.
func TestLimitLoweredMidDownload(t *testing.T) {
	t.Parallel()
	src := t.TempDir()
	data := randomBytes(t, 24<<20+3)
	mi := makeTorrent(t, src, "swing.bin", []testFile{{Path: "", Data: data}})
	addr := seeder(t, src, mi)
	c := NewClient(Config{ListenHost: "127.0.0.1", Logger: discard, DownloadLimit: 256 << 20})
	t.Cleanup(func() { c.Close() })
	spec := specOf(t, mi)
	spec.Peers = []string{addr}
	dest := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	j, err := c.Start(ctx, &Request{Dir: dest, Spec: spec})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Stop()
	for deadline := time.Now().Add(time.Minute); j.Snapshot().Mirrors[0].Bytes < 1<<20; {
		if time.Now().After(deadline) {
			t.Fatal("the download did not start")
		}
		time.Sleep(10 * time.Millisecond)
	}
	for range 20 {
		c.SetLimits(256<<20, 0)
		time.Sleep(50 * time.Millisecond)
		c.SetLimits(20<<10, 0)
		time.Sleep(50 * time.Millisecond)
	}
	c.SetLimits(0, 0)
	if err := j.Err(); err != nil {
		t.Fatal(err)
	}
	sameFile(t, dest, "swing.bin", data)
}
