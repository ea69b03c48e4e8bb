package ui

import (
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"
)

// The Peers and Trackers tabs are there for a torrent job only, say a
// sentence when they have nothing to list, and list peers and trackers
// in words; the Files tab of a downloading torrent ticks the fetched
// files, and unticking one asks the backend to skip it.
func TestSwarmTabs(t *testing.T) {
	test.NewTempApp(t)
	d := NewDetails()
	var asked []string
	d.OnWant = func(id JobID, name string, want bool) {
		asked = append(asked, name)
		if id != 7 || want {
			t.Errorf("OnWant(%d, %s, %v)", id, name, want)
		}
	}
	torrent := Detail{Job: Job{ID: 7, Name: "pair", State: Running, Torrent: true}, Files: []FileDetail{
		{Name: "pair/a.bin", Size: 10, Choosable: true},
		{Name: "pair/b.bin", Size: 10, Choosable: true},
		{Name: "pair/c.bin", Size: 10, Skipped: true, Choosable: true},
	}}
	d.Show(torrent)
	if !d.SwarmShown() || len(d.Tabs.Items) != 6 {
		t.Fatalf("a torrent job: %d tabs", len(d.Tabs.Items))
	}

	d.Tabs.Select(d.PeersTab())
	d.ShowPeers(nil, false)
	if n := d.SwarmNote(); !strings.Contains(n, "not running") {
		t.Errorf("peers of a torrent not running: %q", n)
	}
	d.ShowPeers(nil, true)
	if n := d.SwarmNote(); n != "No peers connected yet." {
		t.Errorf("no peers: %q", n)
	}
	d.ShowPeers([]PeerDetail{{Addr: "127.0.0.1:6881", Client: "Transmission 4.05", Source: PeerFromTracker, Flags: true,
		AmInterested: true, Encrypted: true, Down: 2 << 20, Progress: 1, Seeder: true}}, true)
	if n := d.SwarmNote(); n != "" {
		t.Errorf("a peer listed and the note says %q", n)
	}
	if got := d.PeerTexts(); len(got) != 1 || got[0] != "127.0.0.1:6881 | Transmission 4.05 | seed | 2.0 MiB/s |  | downloading, encrypted | tracker" {
		t.Errorf("peer row: %q", got)
	}

	d.Tabs.Select(d.TrackersTab())
	d.ShowTrackers(nil, true)
	if n := d.SwarmNote(); !strings.Contains(n, "names no tracker") {
		t.Errorf("no trackers: %q", n)
	}
	d.ShowTrackers([]TrackerDetail{
		{URL: "http://tracker.example/announce", State: TrackerWorking, Peers: 12, Next: 29 * time.Minute},
		{URL: "udp://gone.example:6969", Tier: 1, State: TrackerFailed, Err: "The server could not be reached.", Peers: -1, Next: time.Minute},
		{URL: "http://new.example/announce", Tier: 2, State: TrackerNotContacted, Peers: -1, Next: -1},
	}, true)
	want := []string{
		"http://tracker.example/announce | 1 | Working | 12 | 29 min",
		"udp://gone.example:6969 | 2 | The server could not be reached. |  | 1 min",
		"http://new.example/announce | 3 | Not contacted yet |  | ",
	}
	if got := d.TrackerTexts(); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("tracker rows:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	// The Files tab: a ticked box for each fetched file, an empty one
	// for the skipped; unticking asks to skip.
	d.Tabs.Select(d.FilesTab)
	rows := map[string]*fileRow{}
	for i := range torrent.Files {
		r := d.newFileRow().(*fileRow)
		d.updateFileRow(i, r)
		rows[torrent.Files[i].Name] = r
	}
	if r := rows["pair/a.bin"]; !r.want.Visible() || !r.want.Checked {
		t.Errorf("a fetched file: box shown %v, ticked %v", r.want.Visible(), r.want.Checked)
	}
	if r := rows["pair/c.bin"]; r.want.Checked || r.state.String() != "Skipped" {
		t.Errorf("a skipped file: ticked %v, state %q", r.want.Checked, r.state.String())
	}
	test.Tap(rows["pair/b.bin"].want)
	if len(asked) != 1 || asked[0] != "pair/b.bin" {
		t.Errorf("unticking b.bin asked for %v", asked)
	}

	// Another kind of job: the tabs go, and the pane is on Files.
	d.Tabs.Select(d.PeersTab())
	d.Show(Detail{Job: Job{ID: 8, Name: "x.iso", State: Done}, Files: []FileDetail{{Name: "x.iso", Size: 1}}})
	if d.SwarmShown() || len(d.Tabs.Items) != 4 || d.Tabs.Selected() != d.FilesTab {
		t.Errorf("a plain job: %d tabs, on %q", len(d.Tabs.Items), d.Tabs.Selected().Text)
	}
	// A done torrent's files have no box.
	d.Show(Detail{Job: Job{ID: 9, Name: "t", State: Done, Torrent: true}, Files: []FileDetail{{Name: "t/a", Size: 1, State: FileVerified}}})
	r := d.newFileRow().(*fileRow)
	d.updateFileRow(0, r)
	if r.want.Visible() {
		t.Error("a done torrent's file can be unticked")
	}
}
