package bridge

import (
	"testing"

	"braid/engine/mirrortest"
	"braid/internal/testkit"
	"braid/ui"
)

// The window's speed limit is one budget for HTTP downloads and torrents:
// the session's BitTorrent client has the limit the running download has,
// follows a change of the setting while the download runs, and the
// alternative limit when the one-click slower speed is turned on.
func TestOneSpeedLimitForDownloadsAndTorrents(t *testing.T) {
	t.Parallel()
	data := payload(64 * pieceLen)
	m := mirrortest.New(t, data)
	f := describeData(t, "big.bin", data, m.URL())
	q := openQueue(t)
	b := newBackend(t, q)
	s, err := b.Settings()
	if err != nil {
		t.Fatal(err)
	}
	s.SpeedLimit, s.AltSpeedLimit = 256<<10, 128<<10
	if err := b.SetSettings(s); err != nil {
		t.Fatal(err)
	}
	tc, err := b.runner.TorrentClient()
	if err != nil {
		t.Fatal(err)
	}
	torrentLimit := func() int64 { down, _ := tc.Limits(); return down }
	httpLimit := func() int64 {
		c := b.runner.ClientNow()
		if c == nil {
			return -1
		}
		return c.Limits().Limit
	}
	id := startOne(t, b, "big.meta4", f, t.TempDir())
	testkit.WaitFor(t, "the download to start", func() bool { return jobByID(t, b, id).Done > 0 })
	if h, bt := httpLimit(), torrentLimit(); h != 256<<10 || bt != 256<<10 {
		t.Fatalf("limits: HTTP %d, torrents %d, want both the setting's %d", h, bt, 256<<10)
	}

	s.SpeedLimit = 1 << 20
	if err := b.SetSettings(s); err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, "both to follow the new speed limit", func() bool {
		return httpLimit() == 1<<20 && torrentLimit() == 1<<20
	})

	// "Slow" on and off: the limits change under the download under way,
	// which goes on (the same engine download: nothing was restarted).
	dl, ok := b.runner.Live(int64(id))
	if !ok {
		t.Fatal("no live download for the job")
	}
	if err := b.SetSchedule(ui.Schedule{AltSpeed: true}); err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, "both to take the alternative limit", func() bool {
		return httpLimit() == 128<<10 && torrentLimit() == 128<<10
	})
	testkit.WaitFor(t, "the download to go on", func() bool { return jobByID(t, b, id).State == ui.Running })
	if now, ok := b.runner.Live(int64(id)); !ok || now != dl {
		t.Error("turning Slow on restarted the download")
	}
	if err := b.SetSchedule(ui.Schedule{}); err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, "both to take the speed limit again", func() bool {
		return httpLimit() == 1<<20 && torrentLimit() == 1<<20
	})
	if now, ok := b.runner.Live(int64(id)); !ok || now != dl {
		t.Error("turning Slow off restarted the download")
	}
}
