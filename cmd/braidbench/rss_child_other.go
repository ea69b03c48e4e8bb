//go:build !linux

package main

import (
	"context"
	"os"
	"os/exec"
)

// childCommand returns the command that runs bin with args, and how to
// read its peak resident bytes once it has ended.
func childCommand(ctx context.Context, bin string, args ...string) (*exec.Cmd, func(*os.ProcessState) memPeak) {
	return directCommand(ctx, bin, args...)
}
