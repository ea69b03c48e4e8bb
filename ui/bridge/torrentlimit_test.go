package bridge

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"braid/engine/torrent/torrenttest"
	"braid/internal/testkit"
	"braid/ui"
)

// TestSpeedChangesNeverRestartATorrent downloads a torrent from a peer
// under a low speed limit, and while it runs turns Slow on and off and
// sets a new limit; then, while it seeds, does so again. The torrent the
// runner holds is the same one throughout each phase (never stopped and
// started again), the row never leaves its state, and the file is whole.
func TestSpeedChangesNeverRestartATorrent(t *testing.T) {
	t.Parallel()
	src := t.TempDir()
	data := payload(4 << 20)
	mi := torrenttest.Make(t, src, "slow.bin", 64<<10, []torrenttest.File{{Data: data}})
	peer := torrenttest.Seed(t, src, mi)
	magnet := fmt.Sprintf("magnet:?xt=urn:btih:%s&dn=slow.bin&x.pe=%s", mi.HashInfoBytes().HexString(), peer)

	q := torrentQueue(t, 1000) // seeds on for the whole test
	b := startedBackend(t, q)
	s, err := b.Settings()
	if err != nil {
		t.Fatal(err)
	}
	s.SpeedLimit, s.AltSpeedLimit = 64<<10, 32<<10
	if err := b.SetSettings(s); err != nil {
		t.Fatal(err)
	}
	doc := openDoc(t, b, magnet)
	dest := t.TempDir()
	id, err := b.Add(context.Background(), ui.AddRequest{Source: magnet, Doc: doc, Dir: dest})
	if err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, "the torrent to download", func() bool {
		j := jobByID(t, b, id)
		if j.State == ui.Failed {
			t.Fatalf("failed: %s (%s)", j.Err, j.ErrDetail)
		}
		return j.State == ui.Running && j.Done > 0
	})
	live, ok := b.runner.LiveTorrent(int64(id))
	if !ok {
		t.Fatal("no live torrent for the job")
	}
	same := func(when string, want ui.JobState) {
		t.Helper()
		// Time for a stop and a new start to happen, had the change
		// asked for one: the download moves on, the seed stays a while.
		if want == ui.Running {
			before := jobByID(t, b, id).Done
			testkit.WaitFor(t, "the download to go on after "+when, func() bool { return jobByID(t, b, id).Done > before })
		} else {
			time.Sleep(time.Second)
		}
		now, ok := b.runner.LiveTorrent(int64(id))
		if !ok || now != live {
			t.Errorf("%s: the torrent was stopped and started again", when)
		}
		if st := jobByID(t, b, id).State; st != want {
			t.Errorf("%s: the row says %v, want %v", when, st, want)
		}
	}
	changes := func(state ui.JobState) {
		t.Helper()
		if err := b.SetSchedule(ui.Schedule{AltSpeed: true}); err != nil {
			t.Fatal(err)
		}
		same("Slow on", state)
		if err := b.SetSchedule(ui.Schedule{}); err != nil {
			t.Fatal(err)
		}
		same("Slow off", state)
		s.SpeedLimit += 32 << 10
		if err := b.SetSettings(s); err != nil {
			t.Fatal(err)
		}
		same("a new speed limit", state)
	}
	changes(ui.Running)
	if jobByID(t, b, id).Done >= int64(len(data)) {
		t.Fatal("the torrent finished before the limits changed: nothing was tested while it ran")
	}

	s.SpeedLimit = 0 // no limit: finish it
	if err := b.SetSettings(s); err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, "the torrent to seed", func() bool { return slices.Contains(b.runner.Seeding(), int64(id)) })
	testkit.WaitFor(t, "its row to say so", func() bool { return jobByID(t, b, id).State == ui.Seeding })
	live, _ = b.runner.LiveTorrent(int64(id))
	changes(ui.Seeding)
	if !slices.Contains(b.runner.Seeding(), int64(id)) {
		t.Error("the torrent stopped seeding after the speed changes")
	}
	got, err := os.ReadFile(filepath.Join(dest, "slow.bin"))
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("slow.bin: %d bytes, %v", len(got), err)
	}
}
