package main

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"braid/engine/mirrortest"
	"braid/engine/torrent/torrenttest"
	"braid/internal/testkit"
	"braid/ui"
)

// The details pane's Peers and Trackers on a remote torrent. From a braid
// queue run, held to 256 KiB/s, downloading a magnet link from a real
// seeder named in it: the seeder is listed by its address, as a seeder
// with every piece, with its program and "found by the link"; the
// trackers, the magnet's one, listed from the daemon's announce list.
// From an aria2c, a .torrent whose one tracker does not answer: that
// tracker is listed, its status not known (aria2 does not say), and no
// peer. A download that does not run has neither.
func TestRemoteSwarm(t *testing.T) {
	t.Run("braid", func(t *testing.T) {
		d := braidDaemon(t)
		b := remoteBackend(t, d)
		s, err := b.Settings()
		if err != nil {
			t.Fatal(err)
		}
		s.SpeedLimit = 256 << 10
		if err := b.SetSettings(s); err != nil {
			t.Fatal(err)
		}
		src := t.TempDir()
		mi := torrenttest.Make(t, src, "swarm.bin", 64<<10, []torrenttest.File{{Data: mirrortest.Bytes(16<<20, 3)}})
		seeder := torrenttest.Seed(t, src, mi)
		dead := "http://127.0.0.1:" + fmt.Sprint(testkit.FreePort(t)) + "/announce"
		id := addLink(t, b, fmt.Sprintf("magnet:?xt=urn:btih:%s&dn=swarm.bin&x.pe=%s&tr=%s", mi.HashInfoBytes().HexString(), seeder, dead))
		var peers []ui.PeerDetail
		waitDaemon(t, time.Minute, "the seeder listed as sending", func() bool {
			var ok bool
			peers, ok = b.Peers(id)
			return ok && len(peers) == 1 && peers[0].Down > 0
		})
		p := peers[0]
		if p.Addr != seeder || !p.Seeder || p.Progress != 1 || p.Source != ui.PeerFromLink || p.Client == "" {
			t.Errorf("the seeder as the pane gets it: %+v; want %s, a seeder with every piece, found by the link, its program named", p, seeder)
		}
		tr, ok := b.Trackers(id)
		if !ok || len(tr) != 1 || tr[0].URL != dead || tr[0].State != ui.TrackerUnknown {
			t.Errorf("trackers from a Braid daemon: %+v, %v; want the magnet's one tracker, %s", tr, ok, dead)
		}
		if err := b.Pause(id); err != nil {
			t.Fatal(err)
		}
		waitDaemon(t, 10*time.Second, "the torrent paused", func() bool {
			_, running := b.Peers(id)
			return !running
		})
	})
	t.Run("aria2c", func(t *testing.T) {
		d := aria2cDaemon(t)
		b := remoteBackend(t, d)
		src := t.TempDir()
		mi := torrenttest.Make(t, src, "tracked.bin", 64<<10, []torrenttest.File{{Data: testkit.Data(1 << 20)}})
		dead := "http://127.0.0.1:" + fmt.Sprint(testkit.FreePort(t)) + "/announce"
		mi.Announce = dead
		tf := torrenttest.WriteFile(t, mi, "tracked.torrent")
		doc, err := b.Open(context.Background(), tf)
		if err != nil {
			t.Fatal(err)
		}
		id, err := b.Add(context.Background(), ui.AddRequest{Source: tf, Doc: doc})
		if err != nil {
			t.Fatal(err)
		}
		var tr []ui.TrackerDetail
		waitDaemon(t, 20*time.Second, "the torrent running with its tracker", func() bool {
			var ok bool
			tr, ok = b.Trackers(id)
			return ok && len(tr) > 0
		})
		if len(tr) != 1 || tr[0].URL != dead || tr[0].State != ui.TrackerUnknown || tr[0].Peers != -1 || tr[0].Next != -1 {
			t.Errorf("aria2c's tracker as the pane gets it: %+v; want %s, status not known", tr, dead)
		}
		if peers, ok := b.Peers(id); !ok || len(peers) != 0 {
			t.Errorf("peers of a torrent nobody seeds: %+v, %v; want none, running", peers, ok)
		}
		if got := strings.Join(trackerTexts(tr), "\n"); !strings.Contains(got, "Status not known") {
			t.Errorf("the row reads %q", got)
		}
	})
}

// trackerTexts are the rows the Trackers tab shows for tr.
func trackerTexts(tr []ui.TrackerDetail) []string {
	var out []string
	for _, t := range tr {
		out = append(out, t.URL+" | "+t.State.String())
	}
	return out
}
