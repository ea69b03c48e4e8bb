package engine

import (
	"fmt"
	"testing"
	"time"

	benchmirror "braid/bench/mirror"
)

// BenchmarkInOrderCost downloads a file from loopback mirrors at fixed
// rates (BenchmarkScenarios' uniform and mixed), in order and with the
// normal schedule by turns, so both see the same load on the machine, and
// reports the time of each and their ratio as x-normal: what order costs.
func BenchmarkInOrderCost(b *testing.B) {
	const size = 64 << 20
	const pl = 1 << 20
	const mb = 1_000_000
	content := benchmirror.NewContent(size)
	for _, sc := range []struct {
		name  string
		rates []int64 // MB/s
	}{
		{"uniform", []int64{40, 40, 40, 40}},
		{"mixed", []int64{60, 10, 5, 20}},
	} {
		b.Run(sc.name, func(b *testing.B) {
			var us []string
			for i, r := range sc.rates {
				srv, err := benchmirror.Start(content, fmt.Sprintf("127.0.0.%d", i+2), benchmirror.Behaviour{Rate: r * mb})
				if err != nil {
					b.Fatal(err)
				}
				b.Cleanup(srv.Close)
				us = append(us, srv.URL())
			}
			data := make([]byte, size)
			content.Fill(data, 0)
			f := fileFor("f.bin", data, pl, us...)
			var took [2]time.Duration // normal, in order
			for b.Loop() {
				for i, inOrder := range []bool{false, true} {
					start := time.Now()
					dl := (&Client{}).Do(b.Context(), &Request{Dir: b.TempDir(), File: f, InOrder: inOrder})
					if err := dl.Err(); err != nil {
						b.Fatal(err)
					}
					took[i] += time.Since(start)
				}
			}
			n := float64(b.N)
			b.ReportMetric(took[0].Seconds()/n, "s-normal")
			b.ReportMetric(took[1].Seconds()/n, "s-inorder")
			b.ReportMetric(took[1].Seconds()/took[0].Seconds(), "x-normal")
		})
	}
}
