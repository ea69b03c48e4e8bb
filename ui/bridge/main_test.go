package bridge

import (
	"os"
	"testing"

	"braid/engine/torrent/torrenttest"
)

// TestMain runs the tests; on Windows in a second process whose torrent
// seeders map no file, so that their temporary folders can be removed
// (torrenttest.RerunWithClassicIO).
func TestMain(m *testing.M) {
	if code, rerun := torrenttest.RerunWithClassicIO(); rerun {
		os.Exit(code)
	}
	os.Exit(m.Run())
}
