package bridge

import "slices"

// keepPieces records in the queue what a check found of a file's pieces,
// so a restart shows it too (the segment map, the job's progress, braid
// queue list): the pieces found bad no longer count as done, and after a
// check that proved the file (whole is true) every piece does.
func (b *Backend) keepPieces(id int64, name string, bad []int, whole bool) error {
	bits, _, err := b.q.Pieces(id, name)
	if err != nil {
		return err
	}
	for i := range bits.Len() {
		switch {
		case whole:
			bits.Set(i)
		case slices.Contains(bad, i):
			bits.Clear(i)
		}
	}
	return b.q.SetPieces(id, name, bits)
}
