package main

import (
	"context"
	"os"
	"os/exec"
)

// directCommand returns the command that runs bin with args, and how to
// read its peak resident bytes, from the system's own account of the
// child (see rss_linux.go for where Linux's is wrong).
func directCommand(ctx context.Context, bin string, args ...string) (*exec.Cmd, func(*os.ProcessState) int64) {
	return exec.CommandContext(ctx, bin, args...), func(ps *os.ProcessState) int64 {
		if ps == nil { // it did not start
			return 0
		}
		return maxRSS(ps)
	}
}
