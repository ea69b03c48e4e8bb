package runner

import (
	"testing"

	"braid/queue"
	"braid/queue/queuetest"
)

// The BitTorrent client a runner makes takes from its engine Client's
// download limit: one budget, set from the settings, and a change of the
// speed limit the runner follows reaches torrents too.
func TestRunnerTorrentSharesTheSpeedLimit(t *testing.T) {
	t.Parallel()
	q := queuetest.Open(t, queue.Open, t.TempDir())
	if err := q.UpdateSettings(func(s *queue.Settings) { s.SpeedLimit = 300 << 10 }); err != nil {
		t.Fatal(err)
	}
	r := &Runner{Queue: q} // the Client made from the settings
	t.Cleanup(func() { r.Close() })
	tc, err := r.TorrentClient()
	if err != nil {
		t.Fatal(err)
	}
	if down, _ := tc.Limits(); down != 300<<10 {
		t.Fatalf("the torrent client's download limit is %d, want the setting's %d", down, 300<<10)
	}
	if err := q.UpdateSettings(func(s *queue.Settings) { s.SpeedLimit = 2 << 20 }); err != nil {
		t.Fatal(err)
	}
	r.follow()
	if down, _ := tc.Limits(); down != 2<<20 || r.Client.Limits().Limit != 2<<20 {
		t.Fatalf("after the setting changed: torrent %d, HTTP %d, want both %d", down, r.Client.Limits().Limit, 2<<20)
	}
}
