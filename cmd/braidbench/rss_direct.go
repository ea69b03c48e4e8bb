package main

import (
	"context"
	"os"
	"os/exec"
)

// directCommand returns the command that runs bin with args, and how to
// read its peak resident bytes, from the system's own account of the
// child (see rss_linux.go for where Linux's is wrong). The anonymous
// peak is not known this way.
func directCommand(ctx context.Context, bin string, args ...string) (*exec.Cmd, func(*os.ProcessState) memPeak) {
	return exec.CommandContext(ctx, bin, args...), func(ps *os.ProcessState) memPeak {
		if ps == nil { // it did not start
			return memPeak{}
		}
		return memPeak{rss: maxRSS(ps)}
	}
}

// memPeak is a child's peak memory in bytes: all of it that was resident
// (RSS), and the part of it that was anonymous (heap, stacks: what the
// program allocated, as against the pages of its binary and libraries,
// which the page cache shares). 0: unknown.
type memPeak struct{ rss, anon int64 }
