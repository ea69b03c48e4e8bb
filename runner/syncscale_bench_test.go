//go:build linux

package runner

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"syscall"
	"testing"
	"time"

	"braid/engine"
	"braid/engine/resourcesync/rstest"
	"braid/queue"
	"braid/queue/queuetest"
)

// BenchmarkSync100000Entries syncs a Resource List of 100,000 small
// resources (512 bytes each, with md5 and sha-256) from a loopback source
// into an empty folder, then syncs the unchanged list again. The source
// publishes no Change List, so the second sync compares the whole
// Resource List with the folder: the costly way a sync can find that
// nothing changed. It reports each sync's wall and CPU seconds (CPU of
// the whole test process, the loopback source's included), the peak RSS,
// and the bytes the second sync downloaded, which must be none.
// BRAID_SYNC_ENTRIES sets another count (for a quick profile).
func BenchmarkSync100000Entries(b *testing.B) {
	entries := 100_000
	if s := os.Getenv("BRAID_SYNC_ENTRIES"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			b.Fatalf("BRAID_SYNC_ENTRIES=%q: want a count", s)
		}
		entries = n
	}
	const size = 512
	var first, second, firstCPU, secondCPU time.Duration
	var secondBytes int64
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		src := rstest.New(b)
		src.NoChangeList = true
		for j := range entries {
			data := make([]byte, size)
			copy(data, fmt.Sprintf("resource %d of %d\n", j, entries))
			src.Put(fmt.Sprintf("/d%03d/f%06d.bin", j%100, j), data)
		}
		q := queuetest.Open(b, queue.Open, b.TempDir())
		dir := b.TempDir()
		sync := func(mode string) (time.Duration, time.Duration) {
			b.Helper()
			c0, t0 := cpuTime(b), time.Now()
			res, err := Sync(context.Background(), q, src.URL(), dir, SyncOptions{Client: &engine.Client{}})
			wall, cpu := time.Since(t0), cpuTime(b)-c0
			if err != nil || !res.OK() || len(res.Mode) != 1 || res.Mode[0] != mode ||
				res.Counts[SyncFetched]+res.Counts[SyncKept] != entries {
				b.Fatalf("%s sync: %+v, %v", mode, res, err)
			}
			return wall, cpu
		}
		b.StartTimer()

		w, c := sync("full")
		first, firstCPU = first+w, firstCPU+c
		before := src.BytesServed()
		w, c = sync("compare")
		second, secondCPU = second+w, secondCPU+c
		secondBytes += src.BytesServed() - before
	}
	n := float64(b.N)
	b.ReportMetric(first.Seconds()/n, "first-s")
	b.ReportMetric(firstCPU.Seconds()/n, "first-cpu-s")
	b.ReportMetric(second.Seconds()/n, "second-s")
	b.ReportMetric(secondCPU.Seconds()/n, "second-cpu-s")
	b.ReportMetric(float64(secondBytes)/n, "second-bytes")
	b.ReportMetric(float64(peakRSS(b))/(1<<20), "peak-rss-MiB")
	if secondBytes != 0 {
		b.Fatalf("the second sync of an unchanged list downloaded %d bytes", secondBytes)
	}
}

// cpuTime is the user and system time the process has used.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// peakRSS is the process's peak resident memory in bytes (Linux counts
// ru_maxrss in KiB).
func peakRSS(b *testing.B) int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return ru.Maxrss << 10
}
