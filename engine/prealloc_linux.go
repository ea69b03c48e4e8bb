package engine

import (
	"errors"
	"os"
	"syscall"
)

// preallocate reserves size bytes for f on disk, so a full disk shows up
// now rather than halfway through, and the file is laid out in one piece.
// File systems without fallocate get a sparse file of the right length.
func preallocate(f *os.File, size int64) error {
	if size <= 0 {
		return f.Truncate(max(size, 0))
	}
	err := syscall.Fallocate(int(f.Fd()), 0, 0, size)
	if err == nil {
		return nil
	}
	if errors.Is(err, syscall.ENOSPC) {
		return err
	}
	return f.Truncate(size)
}

// syncFileRangeWrite is SYNC_FILE_RANGE_WRITE: start writing dirty pages
// without waiting for them.
const syncFileRangeWrite = 2

// startWriteback asks the kernel to begin writing f's dirty pages now,
// without waiting, so that the fsync before the rename finds little left
// to do.
func startWriteback(f *os.File) {
	syscall.SyncFileRange(int(f.Fd()), 0, 0, syncFileRangeWrite)
}
