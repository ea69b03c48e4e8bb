package runner

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"braid/engine/torrent"
	"braid/engine/torrent/torrenttest"
	"braid/internal/testkit"
	"braid/queue"
)

// notes is an Observer that keeps the Notes it is told.
type notes struct {
	Quiet
	mu  sync.Mutex
	got []Note
}

func (n *notes) Interval() time.Duration { return 50 * time.Millisecond }

func (n *notes) Note(x Note) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.got = append(n.got, x)
}

func (n *notes) of(kind NoteKind) []Note {
	n.mu.Lock()
	defer n.mu.Unlock()
	var out []Note
	for _, x := range n.got {
		if x.Kind == kind {
			out = append(out, x)
		}
	}
	return out
}

// A torrent whose tracker refuses it says so, once, with the tracker's
// reason and its address without the passkey in its query: a swarm that
// finds nobody is otherwise silent.
func TestTorrentTellsTrackerFailure(t *testing.T) {
	t.Parallel()
	const reason = "Requested download is not authorized for use with this tracker."
	tracker := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("d14:failure reason" + strconv.Itoa(len(reason)) + ":" + reason + "e"))
	}))
	t.Cleanup(tracker.Close)
	src := t.TempDir()
	mi := torrenttest.Make(t, src, "alone.bin", 64<<10, []torrenttest.File{{Data: testkit.Data(256 << 10)}})
	mi.Announce = tracker.URL + "/announce?passkey=s3cret"
	tf := torrenttest.WriteFile(t, mi, "alone.torrent")

	q := noSeedQueue(t)
	id := addTorrent(t, q, tf, t.TempDir(), nil)
	c := torrent.NewClient(torrent.Config{ListenHost: "127.0.0.1", Trackers: true, Logger: slog.New(slog.DiscardHandler)})
	t.Cleanup(func() { c.Close() })
	r := runner(q)
	r.Torrent = c
	o := &notes{}
	r.Observer = o
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan error, 1)
	go func() { ran <- r.RunJob(ctx, id) }()
	defer func() { cancel(); <-ran }()

	want := "tracker " + tracker.URL + "/announce: "
	for end := time.Now().Add(20 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if told := o.of(NoteTracker); len(told) > 0 {
			n := told[0]
			if !strings.HasPrefix(n.Message, want) || !strings.Contains(n.Message, reason) || strings.Contains(n.Message, "s3cret") || n.File != "alone.bin" {
				t.Fatalf("the note is %+v; want File alone.bin and %q with the tracker's reason, no passkey", n, want)
			}
			// The tracker is asked again; the same reason is not told again.
			time.Sleep(300 * time.Millisecond)
			if told := o.of(NoteTracker); len(told) != 1 {
				t.Fatalf("told %d times: %+v", len(told), told)
			}
			if j, err := q.Get(id); err != nil || j.State != queue.Running {
				t.Fatalf("the job is %v (%v), want running: a failing tracker does not end it", j.State, err)
			}
			return
		}
	}
	t.Fatal("no note of the tracker's failure in 20 s")
}
