package ui

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestSlowWithoutALimitSaysSo: with no alternative limit set, Slow does
// not switch to "no limit" in silence: the window says why and offers the
// settings; with one set, it switches.
func TestSlowWithoutALimitSaysSo(t *testing.T) {
	b := newMemBackend()
	w, _ := newTestWindow(t, b)
	w.Settings.AltSpeedLimit = 0
	w.ToggleAltSpeed()
	w.Settle()
	if s, _ := b.Schedule(); s.AltSpeed {
		t.Error("Slow turned on with no alternative limit set")
	}
	texts := strings.Join(VisibleTexts(w.Win.Canvas()), "\n")
	if !strings.Contains(texts, "none is set") {
		t.Errorf("the window does not say why Slow changes nothing:\n%s", texts)
	}
	overlayButton(t, w, "No").OnTapped()

	w.Settings.AltSpeedLimit = 100 << 10
	w.ToggleAltSpeed()
	w.Settle()
	if s, _ := b.Schedule(); !s.AltSpeed {
		t.Error("Slow did not turn on with an alternative limit set")
	}
}

// seedBackend is a memBackend whose torrents seed: StopSeeding ends it.
type seedBackend struct{ *memBackend }

func (b seedBackend) StopSeeding(id JobID) error {
	return b.setState("stop seeding", id, []JobState{Seeding}, Done)
}

// TestStopSeedingFromTheMenus: "Stop seeding" is offered for a seeding
// row, in the row menu and the Downloads menu, and ends its seeding; it
// is not offered for a job that does not seed.
func TestStopSeedingFromTheMenus(t *testing.T) {
	b := seedBackend{newMemBackend()}
	seed := b.put(Detail{Job: Job{Name: "swarm.iso", State: Seeding, Size: 100, Done: 100}})
	done := b.put(Detail{Job: Job{Name: "plain.bin", State: Done, Size: 100, Done: 100}})
	w, _ := newTestWindow(t, b)

	w.Select(done)
	w.setToolbar()
	if !w.menu.stopSeed.Disabled {
		t.Error("Stop seeding is offered for a job that does not seed")
	}
	w.Select(seed)
	w.setToolbar()
	if w.menu.stopSeed.Disabled {
		t.Fatal("Stop seeding is not offered for a seeding job")
	}
	if !slices.Contains(w.Menu.Items[1].Items, w.menu.stopSeed) {
		t.Error("the Downloads menu has no Stop seeding")
	}
	w.menu.stopSeed.Action()
	w.Settle()
	if !slices.Contains(b.Calls(), fmt.Sprintf("stop seeding %d", seed)) {
		t.Errorf("calls %q: the seeding was not stopped", b.Calls())
	}
}
