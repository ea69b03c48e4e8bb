package main

import (
	"os/exec"
	"runtime"
	"testing"
)

// needXdotool returns the path of xdotool, which the real-window tests
// drive the window with under Xvfb, and skips tb where it is missing: on
// Windows (a test binary under Wine finds only Windows programs, and
// neither Xvfb nor xdotool is one), or on a Linux machine without the
// package.
func needXdotool(tb testing.TB) string {
	tb.Helper()
	if runtime.GOOS == "windows" {
		tb.Skip("the real-window tests drive the window with Xvfb and xdotool, Linux programs; a test binary under Wine finds only Windows programs (make test runs them on Linux)")
	}
	xdotool, err := exec.LookPath("xdotool")
	if err != nil {
		tb.Skip("xdotool is not installed (Debian: apt-get install xdotool, or make setup); this test drives a real window with it")
	}
	return xdotool
}
