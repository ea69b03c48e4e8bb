//go:build !headless && !braidtest

package main

import (
	"braid/cmd/braid/internal/testmode"
)

// The test binary has the window's test modes too: on Windows it runs as
// braid.exe and braid-window.exe (buildBraid), which the tests start with
// BRAID_AUTOADD and the like. Built with the braidtest tag, testmode.go
// does this.
func init() { testModes = readTestModes }

func readTestModes(getenv func(string) string) (windowModes, error) {
	return testmode.FromEnv(getenv)
}
