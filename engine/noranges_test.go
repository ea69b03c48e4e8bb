package engine

import (
	"testing"

	"braid/engine/mirrortest"
)

// TestRangelessMirrors checks that mirrors which ignore Range (they answer
// every GET with a 200 and the whole file, as `python3 -m http.server`
// does) still deliver a file of many segments: alone, together, and beside
// a mirror that serves ranges.
func TestRangelessMirrors(t *testing.T) {
	const pl = 256 << 10
	// 37 pieces: more than the first segment a mirror is given
	// (firstChunk), so a lone mirror is asked for a second one.
	data := testData(9<<20 + 4321)
	tests := []struct {
		name   string
		client *Client
		opts   [][]mirrortest.Option // one entry per mirror, in metalink order
		// busy lists the mirrors that must have filled pieces.
		busy []int
		// gets, when > 0, is how many GETs the first mirror must have
		// answered: its Stat tells it serves no ranges, so its first
		// request is already the stream of the whole file.
		gets int
	}{
		{
			name: "one rangeless mirror",
			opts: [][]mirrortest.Option{{mirrortest.NoRanges()}},
			busy: []int{0},
			gets: 1,
		},
		{
			// Several connections start before the mirror is known to
			// serve no ranges.
			name:   "one rangeless mirror, four connections",
			client: &Client{MaxConnsPerMirror: 4},
			opts:   [][]mirrortest.Option{{mirrortest.NoRanges()}},
			busy:   []int{0},
		},
		{
			name: "two rangeless mirrors",
			opts: [][]mirrortest.Option{{mirrortest.NoRanges()}, {mirrortest.NoRanges()}},
		},
		{
			name: "rangeless beside ranged",
			opts: [][]mirrortest.Option{
				{mirrortest.NoRanges(), mirrortest.Rate(4 << 20)},
				{mirrortest.Rate(4 << 20)},
			},
			busy: []int{0, 1},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var ms []*mirrortest.Mirror
			for i, o := range tc.opts {
				ms = append(ms, mirrortest.New(t, data, append([]mirrortest.Option{addr(i)}, o...)...))
			}
			dir := t.TempDir()
			c := tc.client
			if c == nil {
				c = &Client{}
			}
			snap, err := get(t, c, &Request{Dir: dir, File: fileFor("f.bin", data, pl, urls(ms...)...)})
			if err != nil {
				t.Fatal(err)
			}
			wantFile(t, dir, "f.bin", data)
			if snap.State != StateDone || snap.Verified != len(snap.Pieces) {
				t.Fatalf("snapshot: state %s, %d of %d pieces verified", snap.State, snap.Verified, len(snap.Pieces))
			}
			by := filledBy(snap)
			total := 0
			for i, m := range ms {
				h := mirrorByURL(t, snap, m.URL())
				if h.State == MirrorDropped || h.Strikes != 0 {
					t.Errorf("mirror %d blamed: %s, %d strikes, %q", i, h.State, h.Strikes, h.Reason)
				}
				total += by[m.URL()]
			}
			if total != len(snap.Pieces) {
				t.Errorf("mirrors filled %d pieces of %d: %v", total, len(snap.Pieces), by)
			}
			if tc.gets > 0 {
				n := 0
				for _, r := range ms[0].Ranges() {
					if r.Method == "GET" {
						n++
					}
				}
				if n != tc.gets {
					t.Errorf("mirror 0 answered %d GETs, want %d: %+v", n, tc.gets, ms[0].Ranges())
				}
			}
			for _, i := range tc.busy {
				if by[ms[i].URL()] == 0 || ms[i].BytesServed() == 0 {
					t.Errorf("mirror %d filled %d pieces from %d bytes served; want it to take part (%v)",
						i, by[ms[i].URL()], ms[i].BytesServed(), by)
				}
			}
		})
	}
}
