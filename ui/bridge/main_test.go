package bridge

import (
	"os"
	"testing"

	"braid/engine/torrent/torrenttest"
	"braid/ui"
)

// TestMain runs the tests, with the window's translations loaded first as
// the window loads them before it starts the bridge (the bridge's words
// use their plural forms: "1 bad piece"); on Windows in a second process whose torrent
// seeders map no file, so that their temporary folders can be removed
// (torrenttest.RerunWithClassicIO).
func TestMain(m *testing.M) {
	if code, rerun := torrenttest.RerunWithClassicIO(); rerun {
		os.Exit(code)
	}
	ui.LoadTranslations()
	os.Exit(m.Run())
}
