package engine

import (
	"testing"
	"time"

	"braid/engine/mirrortest"
	"braid/internal/testkit"
)

// A download whose mirror stops sending shows no speed and no time left
// within stillAfter, rather than a rate fading over tens of seconds and
// an ETA of years.
func TestStalledDownloadShowsNoSpeed(t *testing.T) {
	t.Parallel()
	data := testkit.Data(4 << 20)
	m := mirrortest.New(t, data, mirrortest.Rate(1<<20), mirrortest.StallAfter(512<<10))
	f := fileFor("f.bin", data, 256<<10, m.URL())
	dl := (&Client{}).Do(t.Context(), &Request{Dir: t.TempDir(), File: f})
	defer dl.Cancel()
	moving := time.After(30 * time.Second)
	for s := dl.Snapshot(); s.Bytes < 256<<10 || s.Speed == 0; s = dl.Snapshot() {
		select {
		case <-moving:
			t.Fatalf("never moved: %+v", s)
		case <-time.After(20 * time.Millisecond):
		}
	}
	// The mirror sends nothing more: within stillAfter and a margin
	// the snapshot says so.
	limit := time.After(stillAfter + 3*time.Second)
	for {
		s := dl.Snapshot()
		var mirrorSpeed int64
		for _, ms := range s.Mirrors {
			mirrorSpeed += ms.Speed
		}
		if s.Speed == 0 && s.ETA == -1 && mirrorSpeed == 0 {
			return
		}
		select {
		case <-limit:
			t.Fatalf("no byte for %s, yet speed %d B/s, mirrors' %d B/s, ETA %s (state %s)", stillAfter+3*time.Second, s.Speed, mirrorSpeed, s.ETA, s.State)
		case <-time.After(50 * time.Millisecond):
		}
	}
}
