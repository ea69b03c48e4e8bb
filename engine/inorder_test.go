package engine

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"braid/engine/mirrortest"
)

// orderRun downloads data (1 MiB pieces) from three throttled mirrors, one
// of them slow, in order or not, and returns the largest lead seen: how
// many pieces past the done prefix the furthest done piece lay, and the
// highest piece done when the first firstN pieces were all done.
func orderRun(t *testing.T, data []byte, inOrder bool, firstN int) (lead, doneAtN int) {
	t.Helper()
	const pl = 1 << 20
	a := mirrortest.New(t, data, mirrortest.Addr("127.0.0.2"), mirrortest.Rate(4<<20))
	b := mirrortest.New(t, data, mirrortest.Addr("127.0.0.3"), mirrortest.Rate(4<<20))
	c := mirrortest.New(t, data, mirrortest.Addr("127.0.0.4"), mirrortest.Rate(2<<20))
	dir := t.TempDir()
	f := fileFor("f.bin", data, pl, urls(a, b, c)...)
	doneAtN = -1
	snap, err := getWatching(t, &Client{}, &Request{Dir: dir, File: f, InOrder: inOrder}, func(s *Snapshot) {
		prefix, top := 0, -1
		for prefix < len(s.Pieces) && s.Pieces[prefix] == PieceDone {
			prefix++
		}
		for i, st := range s.Pieces {
			if st == PieceDone {
				top = i
			}
		}
		lead = max(lead, top+1-prefix)
		if doneAtN < 0 && prefix >= firstN {
			doneAtN = top
		}
	})
	if err != nil {
		t.Fatalf("in order %v: %v (%+v)", inOrder, err, snap.Mirrors)
	}
	got, err := os.ReadFile(filepath.Join(dir, "f.bin"))
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("in order %v: the file differs from the mirrors' (%v)", inOrder, err)
	}
	for _, m := range snap.Mirrors {
		if m.Useful == 0 {
			t.Errorf("in order %v: mirror %s filled no piece; every mirror should", inOrder, m.URL)
		}
	}
	return lead, doneAtN
}

// A download in order completes its first pieces before later ones: from
// three throttled mirrors (one slow), when the first 8 MiB are whole no
// piece past the next few (the ones the three connections have in hand)
// is done, and all mirrors still work. The normal schedule, on the same
// mirrors, has pieces well past that done by then (which shows the check
// can fail). The largest lead of done pieces over the whole prefix is
// logged for both.
func TestInOrderCompletesTheFrontFirst(t *testing.T) {
	if testing.Short() {
		t.Skip("downloads 2 × 48 MiB at 10 MiB/s")
	}
	const firstN = 8 // pieces of 1 MiB
	const ahead = 6  // pieces past the first N that may be done: the segments the three connections hold
	data := mirrortest.Bytes(48<<20, 36)
	start := time.Now()
	lead, top := orderRun(t, data, true, firstN)
	if took, ideal := time.Since(start), 48*time.Second/10; took > 3*ideal {
		// The mirrors' throttles no longer set the pace: which piece
		// lands first is then the CPU's doing, not the schedule's.
		t.Skipf("the machine is too busy for this test: %s for what the mirrors send in %s (in order: piece %d done when the first %d MiB were whole)", took.Round(time.Millisecond), ideal, top, firstN)
	}
	t.Logf("in order: highest piece done when the first %d MiB were whole: %d; largest lead %d pieces", firstN, top, lead)
	if top >= firstN+ahead {
		t.Errorf("in order, piece %d was done before the first %d MiB were whole; want none past piece %d", top, firstN, firstN+ahead-1)
	}
	normal, ntop := orderRun(t, data, false, firstN)
	t.Logf("normal schedule: highest piece done when the first %d MiB were whole: %d; largest lead %d pieces", firstN, ntop, normal)
	if ntop < firstN+ahead {
		t.Errorf("the normal schedule had only piece %d done when the first %d MiB were whole; the test cannot tell it from one in order", ntop, firstN)
	}
}
