package bridge

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
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

// connectionsClosedWithin bounds how long after the row says Paused the
// mirror may still be writing a response: braid closed its connections
// when its run ended, before the row changed, and the mirror learns it at
// its next write.
const connectionsClosedWithin = 2 * time.Second

// TestPauseLetsGoAtOnce pauses a downloading plain link several times:
// each time the row says Paused within pauseShownWithin of the click, not
// at the run's next look at the queue (up to a second later), and once
// it says Paused braid takes no more bytes. Several rounds, because
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
	dir := t.TempDir()
	id, err := b.Add(ctx, ui.AddRequest{Source: m.URL(), Doc: doc, Dir: dir, Paused: true})
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
		if took > pauseShownWithin {
			t.Errorf("round %d: the row said Paused %s after the click; want within %s", round, took.Round(time.Millisecond), pauseShownWithin)
		}
		// Paused is paused: braid takes no byte after the row says so.
		// What it kept (the row's count, the .part file's bytes) stays as
		// it was, and its connections are closed: the mirror's responses
		// end, and then it sends nothing more. The mirror's own count of
		// bytes written is not the measure before they end: a write the
		// kernel takes after braid closed the connection counts there,
		// though braid never reads it (11,797 bytes once, under load).
		kept := jobByID(t, b, id).Done
		part := readPart(t, dir)
		if !testkit.Eventually(connectionsClosedWithin, func() bool { return m.InFlight().Now() == 0 }) {
			t.Errorf("round %d: the mirror still had %d responses going %s after the row said Paused", round, m.InFlight().Now(), connectionsClosedWithin)
		}
		served := m.BytesServed()
		time.Sleep(300 * time.Millisecond)
		if more := m.BytesServed() - served; more > 0 {
			t.Errorf("round %d: the server sent %d bytes after braid's connections closed", round, more)
		}
		if now := jobByID(t, b, id).Done; now != kept {
			t.Errorf("round %d: the row said %d bytes when it said Paused, %d bytes later", round, kept, now)
		}
		if !bytes.Equal(readPart(t, dir), part) {
			t.Errorf("round %d: the .part file changed after the row said Paused", round)
		}
	}
	t.Logf("the slowest of %d pauses showed in %s", rounds, slowest.Round(time.Millisecond))
}

// readPart reads the one .part file in dir.
func readPart(t *testing.T, dir string) []byte {
	t.Helper()
	parts, err := filepath.Glob(filepath.Join(dir, "*.part"))
	if err != nil || len(parts) != 1 {
		t.Fatalf("want one .part file in %s, found %v (%v)", dir, parts, err)
	}
	data, err := os.ReadFile(parts[0])
	if err != nil {
		t.Fatal(err)
	}
	return data
}
