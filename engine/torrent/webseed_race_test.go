//go:build race

package torrent

import (
	"testing"
	"time"
)

// nudgeWebSeeds fires the library's web seed timer from outside the
// client's lock; the timer's function reads Client.webseedUpdateReason
// before it takes that lock (webseed-requesting.go:482) and relies on
// whoever armed the timer having seen the library's last write of it.
// Nudged many times, every planning the nudges start is ordered after
// the one before it: the race detector, which fails this test on any
// report, sees no race. (Before nudgeWebSeeds took the lock between Stop
// and Reset it reported one here, and once in a runner test under load.)
func TestNudgeWebSeedsRacesNothing(t *testing.T) {
	c := newTestClient(t)
	cl, err := c.client()
	if err != nil {
		t.Fatal(err)
	}
	if webseedTimer(cl) == nil {
		t.Fatal("no webseedRequestTimer in torrent.Client")
	}
	for range 50 {
		nudgeWebSeeds(cl)
		time.Sleep(5 * time.Millisecond)
	}
}
