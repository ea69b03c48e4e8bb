package ui

import (
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
)

// TestJobLineSaysTheRatioOnce: the details' line of a seeding torrent
// said its ratio twice, once with the state and once with the swarm
// ("Seeding · ratio 0.50 · 8.0 MiB · peers: 1, seeds: 1 · ratio 0.50"). It
// says it once, whether the state carries it or not.
func TestJobLineSaysTheRatioOnce(t *testing.T) {
	for _, j := range []Job{
		{State: Seeding, Size: 8 << 20, Done: 8 << 20, Peers: 1, Seeds: 1, Ratio: 0.5, Upload: 3 << 10},
		{State: Seeding, Size: 8 << 20, Done: 8 << 20, Ratio: 0.5},
		{State: Seeding, Size: 8 << 20, Done: 8 << 20},
		{State: Running, Size: 8 << 20, Done: 1 << 20, Peers: 2, Seeds: 1, Ratio: 0.5, Speed: 1 << 20},
	} {
		line := jobLine(j)
		if n := strings.Count(line, "ratio "); n != 1 {
			t.Errorf("%s job, %d peers, ratio %.2f: %q says the ratio %d times", j.State, j.Peers, j.Ratio, line, n)
		}
		if want := "peers: "; !strings.Contains(line, want) {
			t.Errorf("%q does not say the peers", line)
		}
		if j.Upload > 0 && !strings.Contains(line, "↑") {
			t.Errorf("%q does not say the upload speed", line)
		}
	}
}

// TestJobLineSaysWhatIsSkipped: a job resumed from a server that cannot
// resume shows a speed while the server sends again what is on disk; the
// line says so, and how much, instead of only a speed that fills nothing.
func TestJobLineSaysWhatIsSkipped(t *testing.T) {
	j := Job{State: Running, Size: 20 << 20, Done: 8 << 20, Speed: 640 << 10, ETA: 30 * time.Second, Skipping: 7 << 20}
	line := jobLine(j)
	if !strings.Contains(line, "passing 7.0 MiB already on disk, as the server cannot resume") {
		t.Errorf("%q does not say what is passed", line)
	}
	if !strings.Contains(line, "30 s left") {
		t.Errorf("%q lost its time left", line)
	}
	j.Skipping = 0
	if line := jobLine(j); strings.Contains(line, "already on disk") {
		t.Errorf("%q says bytes are passed when none are", line)
	}
}

// TestDoneRowSaysWhyItDoesNotSeed: a done torrent that did not seed on
// says why after its outcome, in the warning colour.
func TestDoneRowSaysWhyItDoesNotSeed(t *testing.T) {
	j := Job{State: Done, Outcome: "verified (BitTorrent piece hashes)", SeedNote: "not seeding: a.iso is no longer in its folder"}
	look := lookOf(j)
	if want := "Done · verified (BitTorrent piece hashes) · not seeding: a.iso is no longer in its folder"; look.Text != want {
		t.Errorf("row says %q, want %q", look.Text, want)
	}
	if look.Color != theme.ColorNameWarning {
		t.Errorf("colour %v, want the warning colour", look.Color)
	}
}

// TestRowSaysACheckDidNotCount: a check the queue could not record adds
// its sentence to what any state says, in the warning colour, and a
// failed job keeps the error colour.
func TestRowSaysACheckDidNotCount(t *testing.T) {
	const note = "Verify could not record what it found (queue database is locked); try it again"
	for _, c := range []struct {
		j     Job
		text  string
		color fyne.ThemeColorName
	}{
		{Job{State: Done, Outcome: "verified (sha-256)", CheckNote: note}, "Done · verified (sha-256) · " + note, theme.ColorNameWarning},
		{Job{State: Failed, Err: "file does not match its hash", CheckNote: note}, "Failed: file does not match its hash · " + note, theme.ColorNameError},
		{Job{State: Done, Mismatch: true, CheckNote: note}, "Checksum mismatch · " + note, theme.ColorNameError},
	} {
		if look := lookOf(c.j); look.Text != c.text || look.Color != c.color {
			t.Errorf("%s: row says %q in %v, want %q in %v", c.j.State, look.Text, look.Color, c.text, c.color)
		}
	}
}
