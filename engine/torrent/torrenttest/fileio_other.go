//go:build !windows

package torrenttest

// RerunWithClassicIO does nothing and returns false: only Windows refuses
// to delete a memory-mapped file (see fileio_windows.go), so elsewhere the
// tests run in this process, with the library's default file I/O.
func RerunWithClassicIO() (code int, rerun bool) { return 0, false }
