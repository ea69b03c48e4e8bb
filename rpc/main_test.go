package rpc

import (
	"os"
	"testing"

	"braid/engine/torrent/torrenttest"
)

// TestMain runs the tests on Windows in a second process whose test
// seeders map no file (see torrenttest.RerunWithClassicIO).
func TestMain(m *testing.M) {
	if code, rerun := torrenttest.RerunWithClassicIO(); rerun {
		os.Exit(code)
	}
	os.Exit(m.Run())
}
