package ui

import (
	"strings"
	"testing"
)

// A job the window cannot reach now says so in its state's words and
// shows no speed and no time left, whatever its last reading was.
func TestUnknownJobShowsNothingStale(t *testing.T) {
	j := Job{ID: 1, Name: "a.iso", State: Unknown, Size: 100 << 20, Done: 40 << 20, Speed: 273 << 10, ETA: 42}
	look := lookOf(j)
	if look.Text != "Unknown: not connected" {
		t.Errorf("an unreached job's words: %q", look.Text)
	}
	if s, e := rowSpeed(j), rowETA(j); s != "" || e != "" {
		t.Errorf("an unreached job shows speed %q and time left %q", s, e)
	}
	if line := jobLine(j); strings.Contains(line, "KiB/s") {
		t.Errorf("an unreached job's line %q shows a speed", line)
	}
	if strings.Contains(look.Text, "Downloading") || j.State.Live() || j.State.Pausable() || j.State.Resumable() {
		t.Errorf("an unreached job counts as live or can be paused or resumed: %+v", look)
	}
}
