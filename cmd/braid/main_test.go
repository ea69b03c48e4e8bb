package main

import (
	"fmt"
	"os"
	"testing"

	"braid/engine/torrent/torrenttest"
)

// TestMain gives the tests a runtime folder of their own, so a test that
// runs `queue run` or the window in this process takes a socket there, not
// the user's (where a Braid the user runs, or another test binary, may be
// listening). Tests that need their own set XDG_RUNTIME_DIR again. On
// Windows the tests run in a second process whose torrent seeders map no
// file (torrenttest.RerunWithClassicIO).
func TestMain(m *testing.M) {
	if asBraid() {
		main() // buildBraid's copy of this binary (Windows): it is braid
	}
	if code, rerun := torrenttest.RerunWithClassicIO(); rerun {
		os.Exit(code)
	}
	dir, err := os.MkdirTemp("", "braid-test-run-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "TestMain:", err)
		os.Exit(1)
	}
	os.Setenv("XDG_RUNTIME_DIR", dir)
	code := m.Run()
	os.RemoveAll(dir)
	removeBuilt()
	os.Exit(code)
}
