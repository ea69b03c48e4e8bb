package ui

import (
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
