package bridge

import (
	"context"
	"fmt"
	"math"
	"testing"
	"time"

	"braid/engine/torrent/torrenttest"
	"braid/ui"
)

// The row (and the details header, which shows the row's job) and the
// Peers tab say one speed for a torrent with one peer: read in one
// refresh they agree to the byte, whatever the limit's bursts.
func TestRowAndPeersAgreeOnSpeed(t *testing.T) {
	t.Parallel()
	src := t.TempDir()
	mi := torrenttest.Make(t, src, "rate.bin", 64<<10, []torrenttest.File{{Data: payload(4 << 20)}})
	peer := torrenttest.Seed(t, src, mi)
	magnet := fmt.Sprintf("magnet:?xt=urn:btih:%s&dn=rate.bin&x.pe=%s", mi.HashInfoBytes().HexString(), peer)

	q := torrentQueue(t, 0)
	b := startedBackend(t, q)
	s, err := b.Settings()
	if err != nil {
		t.Fatal(err)
	}
	s.SpeedLimit = 48 << 10
	if err := b.SetSettings(s); err != nil {
		t.Fatal(err)
	}
	doc := openDoc(t, b, magnet)
	id, err := b.Add(context.Background(), ui.AddRequest{Source: magnet, Doc: doc, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	waitForJob(t, b, id, "the seeder to send", func() bool {
		j := jobByID(t, b, id)
		if j.State == ui.Failed {
			t.Fatalf("the job failed: %s", j.Err)
		}
		ps, ok := b.Peers(id)
		return ok && len(ps) == 1 && j.Speed > 0
	})
	agreed := 0
	for range 12 {
		time.Sleep(700 * time.Millisecond)
		before := jobByID(t, b, id)
		ps, ok := b.Peers(id)
		d, err := b.Detail(id, false)
		after := jobByID(t, b, id)
		if !ok || len(ps) != 1 || err != nil {
			t.Fatalf("peers %+v %v, detail %v", ps, ok, err)
		}
		if before.Speed != after.Speed || d.Job.Speed != after.Speed {
			continue // a new second's measurement came in between
		}
		agreed++
		if math.Abs(ps[0].Down-after.Speed) > 1 {
			t.Errorf("the row says %.0f B/s, the Peers tab %.0f for its one peer", after.Speed, ps[0].Down)
		}
	}
	if agreed < 4 {
		t.Fatalf("only %d readings fell within one measurement", agreed)
	}
}
