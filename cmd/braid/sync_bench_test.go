package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"braid/engine/resourcesync/rstest"
)

// BenchmarkSync1000 syncs a source of 1,000 files of 16 KiB into an empty
// folder, changes 10 of them at the source, and syncs again. It reports
// the time of each sync and the bytes the second one fetched, which
// should be the 10 changed files' and nothing more.
func BenchmarkSync1000(b *testing.B) {
	const files, changed, size = 1000, 10, 16 << 10
	var first, second time.Duration
	var secondBytes, changedBytes int64
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		src := rstest.New(b)
		for j := range files {
			src.Put(fmt.Sprintf("/bench/d%02d/f%04d.bin", j%50, j), getData(size+j))
		}
		state, dir := b.TempDir(), b.TempDir()
		b.StartTimer()

		t0 := time.Now()
		if s := benchSync(b, state, src.URL(), dir); s.Counts["fetched"] != files {
			b.Fatalf("first sync fetched %d files, want %d", s.Counts["fetched"], files)
		}
		first += time.Since(t0)

		b.StopTimer()
		changedBytes = 0
		for j := 0; j < files; j += files / changed {
			d := getData(size + j + 1)
			src.Put(fmt.Sprintf("/bench/d%02d/f%04d.bin", j%50, j), d)
			changedBytes += int64(len(d))
		}
		before := src.BytesServed()
		b.StartTimer()

		t0 = time.Now()
		s := benchSync(b, state, src.URL(), dir)
		second += time.Since(t0)
		secondBytes = src.BytesServed() - before
		if s.Counts["fetched"] != changed || s.Mode[0] != "changes" {
			b.Fatalf("second sync: %+v, want %d fetched through the Change List", s, changed)
		}
	}
	b.ReportMetric(first.Seconds()/float64(b.N), "first-s")
	b.ReportMetric(second.Seconds()/float64(b.N), "second-s")
	b.ReportMetric(float64(secondBytes), "second-bytes")
	b.ReportMetric(float64(changedBytes), "changed-bytes")
}

func benchSync(b *testing.B, state, source, dir string) jsonSyncSummary {
	b.Helper()
	var out, errb bytes.Buffer
	code := cmdSync(context.Background(), []string{"--state", state, "--json", "--jobs", "8", source, "-d", dir}, &out, &errb)
	if code != 0 {
		b.Fatalf("sync: exit %d: %s", code, errb.String())
	}
	lines := bytes.Split(bytes.TrimSpace(out.Bytes()), []byte("\n"))
	var s jsonSyncSummary
	if err := json.Unmarshal(lines[len(lines)-1], &s); err != nil {
		b.Fatal(err)
	}
	return s
}
