//go:build unix

package main

import (
	"os"
	"runtime"
	"syscall"
)

// maxRSS is a finished child's peak resident memory in bytes.
func maxRSS(ps *os.ProcessState) int64 {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0
	}
	if runtime.GOOS == "darwin" {
		return int64(ru.Maxrss) // bytes on macOS
	}
	return int64(ru.Maxrss) << 10 // kilobytes elsewhere
}
