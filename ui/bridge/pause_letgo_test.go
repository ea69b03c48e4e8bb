package bridge

import (
	"context"
	"testing"
	"time"

	"braid/engine/mirrortest"
	"braid/internal/testkit"
	"braid/ui"
)

// pauseShownWithin is how soon after Pause a downloading row must say
// Paused. The runner lets go of a job at once when asked (runner.LetGo:
// its run ends in tens of milliseconds, 365 ms seen under Wine on a busy
// machine); left to its own look at the queue, once a second from the
// run's start, it took 0.99-1.06 s here, where each pause comes just
// after the run's first bytes.
const pauseShownWithin = 600 * time.Millisecond

// TestPauseLetsGoAtOnce pauses a downloading plain link several times:
// each time the row says Paused within pauseShownWithin of the click, not
// at the run's next look at the queue (up to a second later), and once
// it says Paused the server sends no more bytes. Several rounds, because
// a run's own look can fall just after one click by chance; it cannot
// fall so for every one.
func TestPauseLetsGoAtOnce(t *testing.T) {
	t.Parallel()
	data := payload(1024 * pieceLen) // 64 MiB at 2 MiB/s: never finished here
	m := mirrortest.New(t, data, mirrortest.Path("/pub/letgo.bin"), mirrortest.Rate(2<<20))
	q := openQueue(t)
	b := newBackend(t, q)
	ctx := context.Background()
	doc, err := b.Open(ctx, m.URL())
	if err != nil {
		t.Fatal(err)
	}
	id, err := b.Add(ctx, ui.AddRequest{Source: m.URL(), Doc: doc, Dir: t.TempDir(), Paused: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Start(false); err != nil {
		t.Fatal(err)
	}
	const rounds = 4
	var slowest time.Duration
	for round := range rounds {
		if err := b.Resume(id); err != nil {
			t.Fatal(err)
		}
		from := jobByID(t, b, id).Done
		testkit.WaitFor(t, "bytes arriving", func() bool {
			j := jobByID(t, b, id)
			return j.State == ui.Running && j.Done >= from+pieceLen
		})
		clicked := time.Now()
		if err := b.Pause(id); err != nil {
			t.Fatal(err)
		}
		testkit.WaitFor(t, "the pause", func() bool { return jobByID(t, b, id).State == ui.Paused })
		took := time.Since(clicked)
		slowest = max(slowest, took)
		served := m.BytesServed()
		if took > pauseShownWithin {
			t.Errorf("round %d: the row said Paused %s after the click; want within %s", round, took.Round(time.Millisecond), pauseShownWithin)
		}
		// Paused is paused: no byte arrives after the row says so.
		time.Sleep(300 * time.Millisecond)
		if more := m.BytesServed() - served; more > 0 {
			t.Errorf("round %d: the server sent %d bytes after the row said Paused", round, more)
		}
	}
	t.Logf("the slowest of %d pauses showed in %s", rounds, slowest.Round(time.Millisecond))
}
