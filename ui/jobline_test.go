package ui

import (
	"strings"
	"testing"
)

// TestJobLineSaysTheRatioOnce: the details' line of a seeding torrent
// said its ratio twice, once with the state and once with the swarm
// ("Seeding · ratio 0.50 · 8.0 MB · peers: 1, seeds: 1 · ratio 0.50"). It
// says it once, whether the state carries it or not.
func TestJobLineSaysTheRatioOnce(t *testing.T) {
	for _, j := range []Job{
		{State: Seeding, Size: 8 << 20, Done: 8 << 20, Peers: 1, Seeds: 1, Ratio: 0.5, Upload: 3 << 10},
		{State: Seeding, Size: 8 << 20, Done: 8 << 20, Ratio: 0.5},
		{State: Seeding, Size: 8 << 20, Done: 8 << 20},
		{State: Running, Size: 8 << 20, Done: 1 << 20, Peers: 2, Seeds: 1, Ratio: 0.5, Speed: 1 << 20},
	} {
		line := jobLine(j)
		if n := strings.Count(line, "ratio "); n != 1 {
			t.Errorf("%s job, %d peers, ratio %.2f: %q says the ratio %d times", j.State, j.Peers, j.Ratio, line, n)
		}
		if want := "peers: "; !strings.Contains(line, want) {
			t.Errorf("%q does not say the peers", line)
		}
		if j.Upload > 0 && !strings.Contains(line, "↑ ") {
			t.Errorf("%q does not say the upload speed", line)
		}
	}
}
