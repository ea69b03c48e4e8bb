package runner

import (
	"slices"
	"testing"

	"braid/engine/piece"
)

// TestPartTrust: recorded pieces past a .part's end are dropped, and a
// .part longer than its file is marked for a recheck.
func TestPartTrust(t *testing.T) {
	t.Parallel()
	l := piece.Layout{Size: 10<<20 + 5, Length: 1 << 20} // 11 pieces
	rec := piece.NewBitfield(11)
	for _, i := range []int{0, 1, 2, 5, 10} {
		rec.Set(i)
	}
	for _, tc := range []struct {
		name     string
		l        piece.Layout
		part     int64
		want     []int
		cleared  int
		rechecks bool
	}{
		{"whole length (complete or preallocated)", l, l.Size, []int{0, 1, 2, 5, 10}, 0, false},
		{"missing", l, -1, nil, 5, false},
		{"empty", l, 0, nil, 5, false},
		{"cut inside piece 5", l, 5<<20 + 100, []int{0, 1, 2}, 2, false},
		{"ends after piece 5", l, 6 << 20, []int{0, 1, 2, 5}, 1, false},
		{"last piece one byte short", l, l.Size - 1, []int{0, 1, 2, 5}, 1, false},
		{"longer than the file", l, l.Size + 1, []int{0, 1, 2, 5, 10}, 0, true},
		{"unknown size", piece.Layout{Size: -1, Length: 1 << 20}, 3 << 20, []int{0, 1, 2}, 2, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := partTrust(rec, tc.l, tc.part)
			var got []int
			for i := range tr.done.Len() {
				if tr.done.Has(i) {
					got = append(got, i)
				}
			}
			if !slices.Equal(got, tc.want) || tr.cleared != tc.cleared || tr.recheck != tc.rechecks {
				t.Errorf("trusted %v cleared %d recheck %v; want %v %d %v", got, tr.cleared, tr.recheck, tc.want, tc.cleared, tc.rechecks)
			}
			if rec.Count() != 5 {
				t.Error("partTrust changed the recorded bitfield")
			}
		})
	}
}
