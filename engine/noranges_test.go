package engine

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"braid/engine/mirrortest"
	"braid/engine/piece"
	"braid/internal/testkit"
)

// TestRangelessMirrors checks that mirrors which ignore Range (they answer
// every GET with a 200 and the whole file, as `python3 -m http.server`
// does) still deliver a file of many segments: alone, together, and beside
// a mirror that serves ranges.
func TestRangelessMirrors(t *testing.T) {
	t.Parallel()
	const pl = 256 << 10
	// 37 pieces: more than the first segment a mirror is given
	// (firstChunk), so a lone mirror is asked for a second one.
	data := testkit.Data(9<<20 + 4321)
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

// A resume from a mirror that ignores ranges reads again the part of the
// file already on disk and throws it away: the snapshot says how much is
// left to skip, it shrinks as the stream passes it, and the time left
// counts it, so the row does not promise the end in seconds while the
// stream is still passing bytes the file has.
func TestRangelessResumeShowsSkipping(t *testing.T) {
	t.Parallel()
	const pl = 64 << 10
	data := testkit.Data(2 << 20)
	f0 := fileFor("f.bin", data, pl)
	plan := piece.PlanFor(f0)
	dir := t.TempDir()
	// The first half on disk and recorded.
	part := make([]byte, len(data))
	done := piece.NewBitfield(plan.Count())
	half := plan.Count() / 2
	for i := range half {
		off, n := plan.Bounds(i)
		copy(part[off:off+n], data[off:off+n])
		done.Set(i)
	}
	if err := os.WriteFile(filepath.Join(dir, "f.bin.part"), part, 0o644); err != nil {
		t.Fatal(err)
	}
	m := mirrortest.New(t, data, mirrortest.NoRanges(), mirrortest.Rate(512<<10))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	dl := (&Client{}).Do(ctx, &Request{Dir: dir, File: fileFor("f.bin", data, pl, m.URL()), Done: done, Journal: &journal{}})
	skipped := int64(len(data)) / 2
	var seen []int64
	var last Snapshot
	for dl.Snapshot().State < StateVerifying {
		s := dl.Snapshot()
		if s.Skipping > 0 {
			seen = append(seen, s.Skipping)
			if s.Skipping > skipped {
				t.Fatalf("skipping %d bytes, more than the %d on disk", s.Skipping, skipped)
			}
			last = s
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err := dl.Err(); err != nil {
		t.Fatal(err)
	}
	wantFile(t, dir, "f.bin", data)
	if len(seen) < 2 || seen[len(seen)-1] >= seen[0] {
		t.Fatalf("skipping seen as %v; want it shrinking while the stream passes the first half", seen)
	}
	if last.Speed > 0 {
		// The time left covers the skip and the half still to fetch.
		want := time.Duration(float64(last.Skipping+last.Size-last.Bytes) / float64(last.Speed) * float64(time.Second))
		if last.ETA < want-time.Millisecond {
			t.Errorf("%v left with %d bytes to skip and %d to fetch at %d B/s", last.ETA, last.Skipping, last.Size-last.Bytes, last.Speed)
		}
	}
	if s := dl.Snapshot(); s.Skipping != 0 {
		t.Errorf("done, still %d bytes to skip", s.Skipping)
	}
}
