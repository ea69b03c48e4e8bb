package ui

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
)

// infoOf is the details pane's Info tab, key by key.
func infoOf(d *Details) map[string]string {
	text := map[string]string{}
	for i := 0; i+1 < len(d.Info.Objects); i += 2 {
		k, ok1 := d.Info.Objects[i].(*widget.Label)
		v, ok2 := d.Info.Objects[i+1].(*widget.Label)
		if ok1 && ok2 {
			text[k.Text] = v.Text
		}
	}
	return text
}

// rebuildingDetail is a job whose mirrors all sent three pieces bad:
// three are being rebuilt from its parity set of 120 blocks now.
func rebuildingDetail() Detail {
	return Detail{
		Job: Job{ID: 7, Name: "big.iso", State: Running, Size: 100 << 20, Done: 94 << 20, ETA: -1, Rebuilding: 3},
		Files: []FileDetail{{
			Name: "big.iso", Size: 100 << 20, Done: 94 << 20, State: FileRunning, ETA: -1,
			Verification: RebuildingText(3), HasParity: true, ParityBlocks: 120,
			PieceLength: 1 << 20, PieceHash: "sha-256", PieceCount: 100,
			Mirrors: []MirrorDetail{{Host: "mirror.example.org", Priority: 1}, {Host: "ftp.example.net", Priority: 2}, {Host: "dl.example.de:8080", Priority: 3}},
			Pieces:  parityMap(),
		}},
	}
}

// TestDetailsSayParity: the row's state and the pane's state line say
// the pieces being rebuilt from parity (one or many), Info says how many
// recovery blocks the document lists and what the file's check found,
// and a file without parity has no Parity line.
func TestDetailsSayParity(t *testing.T) {
	test.NewTempApp(t)
	d := NewDetails()
	d.Tabs.Select(d.InfoTab)
	det := rebuildingDetail()
	d.Show(det)
	if line, want := d.State.String(), "Downloading: rebuilding 3 pieces from parity"; !strings.HasPrefix(line, want) {
		t.Errorf("state line %q, want it to start %q", line, want)
	}
	if got, want := lookOf(det.Job).Text, "Downloading: rebuilding 3 pieces from parity"; got != want {
		t.Errorf("row state %q, want %q", got, want)
	}
	info := infoOf(d)
	for k, want := range map[string]string{
		"Parity":       "120 recovery blocks available",
		"Verification": "rebuilding 3 pieces from parity",
	} {
		if info[k] != want {
			t.Errorf("info %s = %q, want %q", k, info[k], want)
		}
	}

	// One piece, in a check the user started.
	det.Job.State, det.Job.Rebuilding = Repairing, 1
	if got, want := lookOf(det.Job).Text, "Repairing: rebuilding 1 piece from parity"; got != want {
		t.Errorf("row state %q, want %q", got, want)
	}

	// Done: the outcome carries the count; no rebuilding words are left.
	det.Job = Job{ID: 7, Name: "big.iso", State: Done, Size: 100 << 20, Done: 100 << 20, Outcome: "verified (sha-256)" + RebuiltTextOr(3)}
	det.Files[0].State, det.Files[0].Verification = FileVerified, "verified (sha-256)"+RebuiltTextOr(3)
	d.Show(det)
	info = infoOf(d)
	if got, want := info["Verification"], "verified (sha-256), 3 pieces rebuilt from parity"; got != want {
		t.Errorf("verification %q, want %q", got, want)
	}
	if got, want := lookOf(det.Job).Text, "Done · verified (sha-256), 3 pieces rebuilt from parity"; got != want {
		t.Errorf("row state %q, want %q", got, want)
	}
	if RebuiltTextOr(0) != "" || RebuiltTextOr(1) != ", 1 piece rebuilt from parity" {
		t.Errorf("RebuiltTextOr(0) %q, (1) %q", RebuiltTextOr(0), RebuiltTextOr(1))
	}

	// An index without volumes, and a file without parity.
	det.Files[0].ParityBlocks = 0
	d.Show(det)
	if got := infoOf(d)["Parity"]; got != "the index only: no recovery blocks listed" {
		t.Errorf("parity of an index alone: %q", got)
	}
	det.Files[0].HasParity = false
	d.Show(det)
	if got, ok := infoOf(d)["Parity"]; ok {
		t.Errorf("a file without parity says %q", got)
	}
}

// TestDetailsParityGolden draws the pane on the Segments tab with pieces
// rebuilt from parity and one being rebuilt: the picture the README
// shows.
func TestDetailsParityGolden(t *testing.T) {
	a := test.NewTempApp(t)
	a.Settings().SetTheme(lightTheme())
	d := NewDetails()
	d.Tabs.Select(d.SegmentsTab)
	d.Show(rebuildingDetail())
	img := capture(t, d.Content, fyne.NewSize(760, 360))
	assertGolden(t, "details_parity.png", img)
	if c := dimText(d.SegSummary); !strings.Contains(c, "3 rebuilt from parity") {
		t.Errorf("segment caption %q", c)
	}
}
