package engine

import (
	"fmt"
	"testing"
	"time"

	benchmirror "braid/bench/mirror"
)

// BenchmarkScenarios downloads a file from loopback mirrors at fixed rates
// and reports the time taken divided by the ideal time (size divided by the
// sum of the honest mirrors' rates) as x-ideal, and the throughput; the
// unlimited scenario shows what the CPU allows. cmd/braidbench runs the
// same scenarios at full size through a real `braid get`, beside aria2c.
func BenchmarkScenarios(b *testing.B) {
	const size = 64 << 20
	const pl = 1 << 20
	const mb = 1_000_000
	content := benchmirror.NewContent(size)
	type spec struct {
		benchmirror.Behaviour
		honest bool
	}
	honest := func(r int64) spec { return spec{benchmirror.Behaviour{Rate: r * mb}, true} }
	scenarios := []struct {
		name    string
		mirrors []spec
	}{
		{"uniform", []spec{honest(40), honest(40), honest(40), honest(40)}},
		{"mixed", []spec{honest(60), honest(10), honest(5), honest(20)}},
		{"hostile", []spec{honest(60), honest(10), honest(5),
			{benchmirror.Behaviour{Rate: 20 * mb, StallAfter: 1 << 20}, false},
			{benchmirror.Behaviour{Rate: 20 * mb, CorruptLen: pl, CorruptEvery: 3}, false},
		}},
		{"unlimited", []spec{honest(0), honest(0), honest(0), honest(0)}},
	}
	for _, sc := range scenarios {
		b.Run(sc.name, func(b *testing.B) {
			var us []string
			var sum int64
			for i, s := range sc.mirrors {
				srv, err := benchmirror.Start(content, fmt.Sprintf("127.0.0.%d", i+2), s.Behaviour)
				if err != nil {
					b.Fatal(err)
				}
				b.Cleanup(srv.Close)
				us = append(us, srv.URL())
				if s.honest {
					sum += s.Rate
				}
			}
			var ideal time.Duration
			if sum > 0 {
				ideal = time.Duration(float64(size) / float64(sum) * float64(time.Second))
			}
			data := make([]byte, size)
			content.Fill(data, 0)
			f := fileFor("f.bin", data, pl, us...)
			var total time.Duration
			for b.Loop() {
				dir := b.TempDir()
				start := time.Now()
				dl := (&Client{}).Do(b.Context(), &Request{Dir: dir, File: f})
				if err := dl.Err(); err != nil {
					b.Fatal(err)
				}
				total += time.Since(start)
			}
			per := total.Seconds() / float64(b.N)
			if ideal > 0 {
				b.ReportMetric(per/ideal.Seconds(), "x-ideal")
			}
			b.ReportMetric(size/per/mb, "MB/s")
		})
	}
}

// BenchmarkSnapshotInto: the window polls a snapshot a few times a second;
// for a file of 100,000 pieces and 20 mirrors, reusing one Snapshot costs
// no allocation and copies 300 kB.
func BenchmarkSnapshotInto(b *testing.B) {
	const n = 100_000
	d := &download{pieces: make([]PieceState, n), filler: make([]int16, n)}
	for i := range 20 {
		d.mirrors = append(d.mirrors, &mirror{idx: i, name: fmt.Sprintf("http://m%d.example/f", i)})
	}
	dl := &Download{d: d}
	var s Snapshot
	dl.SnapshotInto(&s)
	b.ReportAllocs()
	for b.Loop() {
		dl.SnapshotInto(&s)
	}
	if len(s.Pieces) != n || len(s.Mirrors) != 20 {
		b.Fatalf("snapshot of %d pieces and %d mirrors", len(s.Pieces), len(s.Mirrors))
	}
}
