//go:build !windows

package torrent_test

// rerunWithClassicIO does nothing: only Windows refuses to delete a
// memory-mapped file (see fileio_windows_test.go).
func rerunWithClassicIO() (int, bool) { return 0, false }
