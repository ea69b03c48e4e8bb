//go:build headless

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
)

// windowBinary is the program that opens the window when braid is built
// headless (the Makefile's bin/braid): the same command with the window
// compiled in. Built apart, braid starts in half the time (no GUI toolkit
// to initialize) and runs where no X11 or OpenGL library is installed,
// which is what scripts and servers calling `braid get` want.
const windowBinary = "braid-window"

// cmdWindow is `braid [SOURCE...]` in a headless build: it hands its
// arguments to braid-window, found beside this executable or else on PATH.
func cmdWindow(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	path, err := findWindow()
	if err != nil {
		fmt.Fprintf(stderr, "braid: %v\nThis braid is built for the command line: %s (braid -h says more)\n", err, headless())
		return 1
	}
	return execWindow(path, args, stderr)
}

// findWindow looks for braid-window beside the running executable (its
// symlinks resolved), then on PATH.
func findWindow() (string, error) {
	name := windowBinary
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	var beside string
	if exe, err := os.Executable(); err == nil {
		if real, err := filepath.EvalSymlinks(exe); err == nil {
			exe = real
		}
		beside = filepath.Join(filepath.Dir(exe), name)
		if fi, err := os.Stat(beside); err == nil && !fi.IsDir() {
			return beside, nil
		}
	}
	path, err := exec.LookPath(name)
	if err == nil {
		return path, nil
	}
	if beside == "" || errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("the window is %s, and it is neither beside braid (%s) nor on PATH", name, beside)
	}
	return "", fmt.Errorf("the window, %s: %w", name, err)
}
