package piece

// DefaultLength is the piece length the engine uses for progress and resume
// when the metalink carries no piece hashes.
const DefaultLength = 1 << 20

// Layout is how a file of Size bytes divides into pieces of Length bytes;
// the last piece may be shorter.
type Layout struct {
	Size   int64
	Length int64
}

// Count is the number of pieces; 0 for an empty file.
func (l Layout) Count() int {
	if l.Size <= 0 || l.Length <= 0 {
		return 0
	}
	return int((l.Size + l.Length - 1) / l.Length)
}

// Bounds returns the offset and length of piece i.
func (l Layout) Bounds(i int) (off, n int64) {
	off = int64(i) * l.Length
	n = l.Length
	if off+n > l.Size {
		n = l.Size - off
	}
	return off, n
}

// Index returns the piece holding byte off.
func (l Layout) Index(off int64) int { return int(off / l.Length) }
