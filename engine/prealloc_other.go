//go:build !linux

package engine

import "os"

// preallocate sets f's length to size; without fallocate the file is
// sparse until written.
func preallocate(f *os.File, size int64) error { return f.Truncate(max(size, 0)) }

// startWriteback does nothing where the kernel cannot be asked to start
// writing back early; the final fsync does all the work.
func startWriteback(*os.File) {}
