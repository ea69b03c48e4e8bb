package bridge

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"braid/engine/torrent/torrenttest"
	"braid/internal/testkit"
	"braid/ui"
)

// A two-file torrent downloading slowly (the window's speed limit) from
// a real seeder, through the backend the window uses: its detail is a
// torrent's, its peers list the seeder by address, its trackers say the
// torrent names none; a file unticked in the Files tab is skipped at once
// (listed as skipped while the torrent downloads; the job ends done with
// the other file verified and the skipped one not fetched, still listed).
func TestSwarmThroughTheWindow(t *testing.T) {
	t.Parallel()
	src := t.TempDir()
	a, b2 := payload(1<<20), payload(1<<20+64<<10)
	mi := torrenttest.Make(t, src, "pair", 64<<10, []torrenttest.File{{Path: "a.bin", Data: a}, {Path: "b.bin", Data: b2}})
	peer := torrenttest.Seed(t, src, mi)
	magnet := fmt.Sprintf("magnet:?xt=urn:btih:%s&dn=pair&x.pe=%s", mi.HashInfoBytes().HexString(), peer)

	q := torrentQueue(t, 0)
	b := startedBackend(t, q)
	s, err := b.Settings()
	if err != nil {
		t.Fatal(err)
	}
	s.SpeedLimit = 64 << 10
	if err := b.SetSettings(s); err != nil {
		t.Fatal(err)
	}
	var _ ui.Swarm = b
	var _ ui.FileChooser = b
	doc := openDoc(t, b, magnet)
	dest := t.TempDir()
	id, err := b.Add(context.Background(), ui.AddRequest{Source: magnet, Doc: doc, Dir: dest})
	if err != nil {
		t.Fatal(err)
	}
	var peers []ui.PeerDetail
	testkit.WaitFor(t, "the seeder to send", func() bool {
		var ok bool
		peers, ok = b.Peers(id)
		return ok && len(peers) == 1 && peers[0].Progress == 1
	})
	if peers[0].Addr != peer || !peers[0].Seeder {
		t.Errorf("peers: %+v, the seeder is %s", peers, peer)
	}
	if trs, ok := b.Trackers(id); !ok || len(trs) != 0 {
		t.Errorf("trackers of a magnet without any: %+v %v", trs, ok)
	}
	// The torrent's speed is no one file's: its files show none.
	testkit.WaitFor(t, "the torrent's speed", func() bool { return jobByID(t, b, id).Speed > 0 })
	if d, err := b.Detail(id, false); err != nil || len(d.Files) != 2 {
		t.Fatalf("detail: %+v, %v", d.Files, err)
	} else {
		for _, f := range d.Files {
			if f.Speed != 0 {
				t.Errorf("%s shows %.0f B/s: the torrent's speed, not its own", f.Name, f.Speed)
			}
		}
	}
	var d ui.Detail
	testkit.WaitFor(t, "both files to be choosable", func() bool {
		d, err = b.Detail(id, false)
		return err == nil && len(d.Files) == 2 && d.Files[0].Choosable && d.Files[1].Choosable
	})
	if !d.Torrent {
		t.Fatal("the detail of a torrent job does not say so")
	}
	if err := b.SetFileWanted(id, "pair/b.bin", false); err != nil {
		t.Fatal(err)
	}
	if err := b.SetFileWanted(id, "pair/a.bin", false); err == nil || strings.Contains(err.Error(), "job") {
		t.Errorf("skipping the last file: %v (want a sentence)", err)
	}
	testkit.WaitFor(t, "b.bin to show skipped", func() bool {
		d, err = b.Detail(id, false)
		return err == nil && len(d.Files) == 2 && d.Files[1].Name == "pair/b.bin" && d.Files[1].Skipped && d.Files[1].Choosable
	})
	s.SpeedLimit = 0
	if err := b.SetSettings(s); err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, "the job to be done", func() bool { return jobByID(t, b, id).State == ui.Done })
	d, err = b.Detail(id, false)
	if err != nil {
		t.Fatal(err)
	}
	// Done: a.bin verified, its box gone; the skipped b.bin still
	// listed, and choosable (for a Resume to fetch it).
	if len(d.Files) != 2 || d.Files[0].Name != "pair/a.bin" || d.Files[0].State != ui.FileVerified || d.Files[0].Choosable ||
		!d.Files[1].Skipped || !d.Files[1].Choosable {
		t.Errorf("the files of the job done: %+v", d.Files)
	}
	if got, err := os.ReadFile(filepath.Join(dest, "pair", "a.bin")); err != nil || string(got) != string(a) {
		t.Fatalf("a.bin: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dest, "pair", "b.bin")); !os.IsNotExist(err) {
		t.Fatalf("the skipped b.bin is at its final name: %v", err)
	}
	if _, ok := b.Peers(id); ok {
		t.Error("peers of a torrent that no longer runs")
	}
}
