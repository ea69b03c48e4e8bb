package torrent

import (
	"testing"
	"time"

	"golang.org/x/sys/windows"
)

// cpuTime is the process's user + system time so far: Windows has no
// getrusage, GetProcessTimes tells the same.
func cpuTime(b *testing.B) time.Duration {
	var created, exited, kernel, user windows.Filetime
	if err := windows.GetProcessTimes(windows.CurrentProcess(), &created, &exited, &kernel, &user); err != nil {
		b.Fatal(err)
	}
	// Filetimes count 100-nanosecond intervals.
	ticks := func(f windows.Filetime) int64 { return int64(f.HighDateTime)<<32 | int64(f.LowDateTime) }
	return time.Duration((ticks(kernel) + ticks(user)) * 100)
}
