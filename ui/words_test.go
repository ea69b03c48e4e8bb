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

// TestCheckInProgress: while a repair runs, the row says how far it is
// (not "Checksum mismatch"), and Verify and Repair cannot be clicked
// again; once it is over, they can.
func TestCheckInProgress(t *testing.T) {
	b := newMemBackend()
	id := b.put(Detail{Job: Job{Name: "gimp.tar.xz", State: Repairing, Mismatch: true, Size: 100, Done: 100, Err: "1 of 2 bad pieces mended"}})
	w, _ := newTestWindow(t, b)
	w.Select(id)
	w.Settle()
	if got := lookOf(w.Details.Detail.Job).Text; got != "Repairing: 1 of 2 bad pieces mended" {
		t.Errorf("the repairing row says %q", got)
	}
	if !w.Details.Verify.Disabled() || !w.Details.Repair.Disabled() {
		t.Error("Verify or Repair can be clicked while a repair runs")
	}
	b.mu.Lock()
	j, _ := b.find(id)
	j.State, j.Err = Failed, ""
	b.mu.Unlock()
	w.Settle()
	w.Details.Show(Detail{Job: Job{ID: id, Name: "gimp.tar.xz", State: Failed, Mismatch: true, Size: 100, Done: 100}})
	if w.Details.Verify.Disabled() || w.Details.Repair.Disabled() {
		t.Error("Verify and Repair stay disabled after the check")
	}
}

// TestStateCounts: the side panel counts the jobs of each state entry,
// and the entry chosen stays chosen as the counts change.
func TestStateCounts(t *testing.T) {
	b := newMemBackend()
	b.put(Detail{Job: Job{Name: "a", State: Failed}})
	b.put(Detail{Job: Job{Name: "b", State: Failed}})
	c := b.put(Detail{Job: Job{Name: "c", State: Paused}})
	w, _ := newTestWindow(t, b)
	for k, want := range map[sideKey]int{{group: groupFailed}: 2, {}: 3, {group: groupPaused}: 1, {group: groupDone}: 0} {
		if n, ok := w.Side.count(k); !ok || n != want {
			t.Errorf("entry %v counts %d (%v), want %d", k, n, ok, want)
		}
	}
	failed := Failed
	w.SetFilter("", &failed)
	for _, id := range []JobID{c, 1} {
		if err := b.Resume(id); err != nil {
			t.Fatal(err)
		}
	}
	w.poll.reload.Store(true) // as the backend's change notice does
	w.Settle()
	if n, _ := w.Side.count(sideKey{group: groupFailed}); w.Side.chosen != (sideKey{group: groupFailed}) || n != 1 || w.List.Length() != 1 {
		t.Errorf("after two resumes: chosen %v, failed %d, %d rows", w.Side.chosen, n, w.List.Length())
	}
	if n, _ := w.Side.count(sideKey{group: groupQueued}); n != 2 {
		t.Errorf("after two resumes: %d queued", n)
	}
}
