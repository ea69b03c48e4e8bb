package runner

import (
	"context"
	"sync"
	"testing"
	"time"

	"braid/engine/mirrortest"
	"braid/engine/netconf"
	"braid/internal/testkit"
	"braid/queue"
	"braid/queue/queuetest"
)

// testClock is a clock a test sets by hand, for Service.Now, which runs
// on from each time set as a real clock does. A clock that stood still
// let the service's next run find the time still inside a window the
// runner had just been stopped at the end of (it ended by a real timer),
// and that run could finish the job the test wanted held.
type testClock struct {
	mu sync.Mutex
	t  time.Time // set at at
	at time.Time
}

func newTestClock(t time.Time) *testClock { return &testClock{t: t, at: time.Now()} }

func (c *testClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t.Add(time.Since(c.at))
}

func (c *testClock) set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t, c.at = t, time.Now()
}

// serve starts svc.Serve until the test ends, and waits for it to
// return then.
func serve(t *testing.T, svc *Service, start bool) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		svc.Serve(ctx, start)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
		_ = svc.Runner.Close()
	})
}

// addJob queues a job of data served by m into q.
func addJob(t *testing.T, q *queue.Queue, name string, data []byte, m *mirrortest.Mirror) int64 {
	t.Helper()
	id, err := q.Add(queue.NewJob{Source: name + ".meta4", Dest: t.TempDir(), Doc: describe(t, name, data, 64<<10, m)})
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func stateIs(t *testing.T, q *queue.Queue, id int64, want queue.State) func() bool {
	return func() bool {
		s, err := q.StateOf(id)
		return err == nil && s == want
	}
}

// The service runs the queue when woken, until it is empty, and then
// sleeps until the next Wake: a job added later runs at that Wake, by
// the same service.
func TestServiceWakeRunsAddedJobs(t *testing.T) {
	t.Parallel()
	q := queuetest.Open(t, queue.Open, t.TempDir())
	data := testkit.Data(300 << 10)
	m := mirrortest.New(t, data)
	var mu sync.Mutex
	var runs int
	svc := NewService(&Runner{Queue: q})
	svc.Busy = func(busy bool) {
		mu.Lock()
		defer mu.Unlock()
		if busy {
			runs++
		}
	}
	serve(t, svc, false)
	runsNow := func() int {
		mu.Lock()
		defer mu.Unlock()
		return runs
	}

	a := addJob(t, q, "a.bin", data, m)
	svc.Wake()
	testkit.WaitFor(t, "the first job to finish", stateIs(t, q, a, queue.Done))
	b := addJob(t, q, "b.bin", data, m)
	svc.Wake()
	testkit.WaitFor(t, "the job added after the queue ran empty to finish", stateIs(t, q, b, queue.Done))
	if n := runsNow(); n != 2 {
		t.Errorf("%d runs for two wakes, one job each; want 2", n)
	}
	if got := m.BytesServed(); got < 2*int64(len(data)) {
		t.Errorf("the mirror served %d bytes for two jobs of %d", got, len(data))
	}
}

// A job queued outside the schedule's time window waits, also when the
// service is woken; once the clock is in the window it runs. A run that
// reaches the window's end stops, its job queued again with its progress,
// and it finishes in the next window.
func TestServiceScheduleHoldsThenRuns(t *testing.T) {
	t.Parallel()
	q := queuetest.Open(t, queue.Open, t.TempDir())
	// 04:00 to 05:00 every day.
	if err := q.UpdateSettings(func(st *queue.Settings) {
		st.Schedule = queue.Schedule{Windows: []queue.TimeWindow{{Start: 4 * 60, End: 5 * 60}}}
	}); err != nil {
		t.Fatal(err)
	}
	day := time.Date(2026, time.March, 2, 0, 0, 0, 0, time.Local)
	clock := newTestClock(day.Add(3 * time.Hour))
	small := testkit.Data(200 << 10)
	fast := mirrortest.New(t, small)
	held := make(chan time.Time, 10)
	ended := make(chan struct{}, 10)
	svc := NewService(&Runner{Queue: q})
	svc.Now = clock.now
	svc.Held = func(_ queue.Schedule, now time.Time) { held <- now }
	svc.Busy = func(busy bool) {
		if !busy {
			ended <- struct{}{}
		}
	}
	id := addJob(t, q, "s.bin", small, fast)
	serve(t, svc, true)
	waitHeld := func(what string) {
		t.Helper()
		select {
		case <-held:
		case <-time.After(20 * time.Second):
			t.Fatalf("the schedule did not hold %s", what)
		}
	}
	waitHeld("the job queued at 03:00")
	svc.Wake() // read again, at the same time of day: still held
	waitHeld("the job after a wake at 03:00")
	if s, err := q.StateOf(id); err != nil || s != queue.Queued || fast.Requests() > 0 {
		t.Fatalf("outside the window the job is %s (%v) and its mirror had %d requests", s, err, fast.Requests())
	}
	clock.set(day.Add(4 * time.Hour))
	svc.Wake()
	testkit.WaitFor(t, "the job to finish in the window", stateIs(t, q, id, queue.Done))
	<-ended

	// A slow download at 04:59:59: the window ends a second later.
	big := testkit.Data(4 << 20)
	slow := mirrortest.New(t, big, mirrortest.Rate(1<<20))
	clock.set(day.Add(5*time.Hour - time.Second))
	id = addJob(t, q, "w.bin", big, slow)
	svc.Wake()
	select {
	case <-ended:
	case <-time.After(20 * time.Second):
		t.Fatal("the run went on past the window's end")
	}
	clock.set(day.Add(5 * time.Hour))
	svc.Wake()
	waitHeld("the job stopped at the window's end")
	j, err := q.Get(id)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, done, size := j.Progress(); j.State != queue.Queued || done == 0 || done >= size {
		t.Fatalf("stopped at the window's end: %s with %d of %d bytes; want queued with its progress", j.State, done, size)
	}
	clock.set(day.Add(28 * time.Hour)) // 04:00 the next day
	svc.Wake()
	testkit.WaitFor(t, "the job to finish in the next window", stateIs(t, q, id, queue.Done))
}

// TestNewClientFollowsTheSettings: the client a run starts with has the
// settings' connection limits and speed limit.
func TestNewClientFollowsTheSettings(t *testing.T) {
	t.Parallel()
	s := queue.Settings{MaxConns: 8, MaxConnsPerMirror: 3, MaxConnsPerHost: 5, SpeedLimit: 1 << 20}
	if c := NewClient(s); c.MaxConns != 8 || c.MaxConnsPerMirror != 3 || c.MaxConnsPerHost != 5 || c.Limit != 1<<20 {
		t.Errorf("NewClient = {MaxConns %d, MaxConnsPerMirror %d, MaxConnsPerHost %d, Limit %d}, does not follow %+v",
			c.MaxConns, c.MaxConnsPerMirror, c.MaxConnsPerHost, c.Limit, s)
	}
}

// TestServiceReadOptions: a service reads a source through the network it
// was given (a face's proxy) before any run has begun, when its runner
// has no client from it yet: a link added to an idle queue is read as
// its download will run.
func TestServiceReadOptions(t *testing.T) {
	t.Parallel()
	q := queuetest.Open(t, queue.Open, t.TempDir())
	n, err := netconf.NewNetwork(netconf.Proxy{Mode: netconf.ProxyNone})
	if err != nil {
		t.Fatal(err)
	}
	svc := NewService(&Runner{Queue: q})
	svc.Network = n
	if o := svc.ReadOptions(); o.Network != n || o.HTTPClient != n.HTTPClient() {
		t.Errorf("the service reads with %p and %p, want its network %p and that network's client", o.Network, o.HTTPClient, n)
	}
}
