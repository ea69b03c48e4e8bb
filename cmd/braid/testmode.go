//go:build braidtest && !headless

package main

import (
	"braid/cmd/braid/internal/testmode"
)

// A build for tests (the braidtest tag: the tests' buildBraid) has the
// window's test modes; a shipped braid does not.
func init() { testModes = readTestModes }

func readTestModes(getenv func(string) string) (windowModes, error) {
	return testmode.FromEnv(getenv)
}
