package rpc

import (
	"context"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"braid/engine/metalink"
	"braid/engine/mirrortest"
	"braid/internal/testkit"
	"braid/queue"
	"braid/queue/queuetest"
	"braid/runner"
)

// countingDownloads counts the server's readings of the queue.
type countingDownloads struct {
	*QueueDownloads
	lists atomic.Int64
}

func (c *countingDownloads) List(want Want) ([]Job, error) {
	c.lists.Add(1)
	return c.QueueDownloads.List(want)
}

// notifyPoll is how often the notification tests' servers look.
const notifyPoll = 5 * time.Millisecond

// servedQueue is a queue a runner.Service runs when woken, a server over
// it that counts its readings, polls every notifyPoll and keeps a list
// for keep, and a WebSocket client connected to it, its baseline taken.
func servedQueue(t *testing.T, keep time.Duration) (*queue.Queue, *runner.Service, *countingDownloads, *Server, *websocket.Conn) {
	t.Helper()
	q := queuetest.Open(t, queue.Open, t.TempDir())
	r := &runner.Runner{Queue: q}
	svc := runner.NewService(r)
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan struct{})
	go func() {
		defer close(served)
		svc.Serve(ctx, false)
	}()
	t.Cleanup(func() { cancel(); <-served; r.Close() })
	d := &countingDownloads{QueueDownloads: &QueueDownloads{Queue: q, Live: r, Wake: svc.Wake}}
	srv, err := New(d, Options{Secret: "s3cret-for-tests", Poll: notifyPoll, Activity: svc.Activity})
	if err != nil {
		t.Fatal(err)
	}
	srv.keep = keep
	hs := httptest.NewServer(srv)
	t.Cleanup(func() { hs.Close(); srv.Close() })
	ws, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(hs.URL, "http")+Path, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	testkit.WaitFor(t, "the new client's baseline", func() bool { return d.lists.Load() > 0 })
	return q, svc, d, srv, ws
}

// addBehindItsBack adds to q, without a word to the server, a job of the
// file name (data, from url), paused or queued, and returns its GID.
func addBehindItsBack(t *testing.T, q *queue.Queue, name string, data []byte, url string, paused bool) string {
	t.Helper()
	doc, err := metalink.Parse(strings.NewReader(meta4(name, data, url)))
	if err != nil {
		t.Fatal(err)
	}
	id, err := q.Add(queue.NewJob{Source: name + ".meta4", Dest: t.TempDir(), Doc: doc, Paused: paused})
	if err != nil {
		t.Fatal(err)
	}
	j, err := q.Get(id)
	if err != nil {
		t.Fatal(err)
	}
	return GID(id, j.AddedAt)
}

// An idle queue is not read for notifications however often the poller
// ticks: only while the service has something under way (and once
// after), and when the server is told of a change. A job the service
// runs by itself, without a word to the server, is still told, start and
// end.
func TestNotifyReadsIdleQueueOnlyWhenTold(t *testing.T) {
	t.Parallel()
	q, svc, d, srv, ws := servedQueue(t, listKeep)
	base := d.lists.Load()
	time.Sleep(40 * notifyPoll) // forty ticks of an idle queue
	if n := d.lists.Load(); n != base {
		t.Errorf("an idle queue was read %d times in 40 ticks, want none", n-base)
	}
	// A paused job, which the reading after Changed sees (its mirror is
	// never asked).
	held := addBehindItsBack(t, q, "held.bin", mirrortest.Bytes(1000, 4), "http://127.0.0.1:9/held.bin", true)
	srv.Changed()
	testkit.WaitFor(t, "a reading after Changed", func() bool { return d.lists.Load() > base })

	// A job added behind the server's back, which the service runs when
	// woken: its only mirror answers 404, so it begins and fails at once.
	data := mirrortest.Bytes(1000, 3)
	gone := mirrortest.New(t, data, mirrortest.Status(404))
	lost := addBehindItsBack(t, q, "lost.bin", data, gone.URL(), false)
	svc.Wake()
	notifications(t, ws, lost, "aria2.onDownloadStart", "aria2.onDownloadError")

	// A command of the client's own changes the idle queue: the queue is
	// read again once it is done, and the client told.
	if err := ws.WriteJSON(map[string]any{"jsonrpc": "2.0", "id": "rm", "method": "aria2.remove", "params": []any{"token:s3cret-for-tests", held}}); err != nil {
		t.Fatal(err)
	}
	notifications(t, ws, held, "aria2.onDownloadStop")
}

// TestNotifyKeepsTheListWhileWorking: while a download runs, the
// notifications read its progress at every tick but the whole queue only
// when something begins or a command changes it (the list is kept here
// for as long as the test runs): its start and its end are still told.
func TestNotifyKeepsTheListWhileWorking(t *testing.T) {
	t.Parallel()
	q, svc, d, _, ws := servedQueue(t, time.Hour)

	// About a second of download: two hundred ticks.
	data := mirrortest.Bytes(256<<10, 5)
	m := mirrortest.New(t, data, mirrortest.Rate(256<<10))
	slow := addBehindItsBack(t, q, "slow.bin", data, m.URL(), false)
	before := d.lists.Load()
	svc.Wake()
	notifications(t, ws, slow, "aria2.onDownloadStart", "aria2.onDownloadComplete")
	// The run's beginning, and the reading once the service is idle
	// again; a few more where the tick meets the run's claim and end.
	if n := d.lists.Load() - before; n > 6 {
		t.Errorf("the queue was listed %d times while one download ran for a second, polled every 5 ms", n)
	}
}
