package par2

import (
	"context"
	"crypto/md5"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
)

// FileReport is what Verify found in one file of the set.
type FileReport struct {
	File    int   // index in Set.Files
	Size    int64 // the size the file has on disk (-1: it does not exist)
	Damaged []int // numbers of the file's slices that fail their checksums, ascending
	// WholeOK says the whole-file MD5 matched too; it is false when a slice
	// is damaged or the size is wrong.
	WholeOK bool
}

// OK says the file is intact.
func (r FileReport) OK() bool { return len(r.Damaged) == 0 && r.WholeOK }

// Verify checks file i of the set, read from r whose length is size (-1 if
// the file is missing: every slice is then damaged), slice by slice.
func (s *Set) Verify(ctx context.Context, i int, r io.ReaderAt, size int64) (FileReport, error) {
	f := s.Files[i]
	rep := FileReport{File: i, Size: size}
	if size < 0 || r == nil {
		for n := range f.Slices {
			rep.Damaged = append(rep.Damaged, n)
		}
		return rep, nil
	}
	whole := md5.New()
	wholeOK := true
	buf := make([]byte, min(s.SliceSize, verifyBuf))
	for n, want := range f.Slices {
		if err := ctx.Err(); err != nil {
			return rep, err
		}
		start := int64(n) * s.SliceSize
		end := min(start+s.SliceSize, f.Size)
		if min(end, size) < end {
			// Cut short: what is there cannot be the slice, and the
			// whole-file hash cannot match either.
			rep.Damaged = append(rep.Damaged, n)
			wholeOK = false
			continue
		}
		var feed io.Writer
		if wholeOK {
			feed = whole
		}
		sum, crc, err := s.sliceSums(r, i, n, buf, feed)
		if err != nil {
			return rep, err
		}
		if sum != want.MD5 || crc != want.CRC32 {
			rep.Damaged = append(rep.Damaged, n)
			wholeOK = false
		}
	}
	if wholeOK && size == f.Size {
		var sum [16]byte
		whole.Sum(sum[:0])
		rep.WholeOK = sum == f.MD5
	}
	return rep, nil
}

// verifyBuf bounds the buffer a slice is hashed through: a set may name
// slices of any size, and reading one must not cost its size in memory.
const verifyBuf = 1 << 20

// sliceSums streams slice n of file fi from r through MD5 and CRC32, padded
// with zeros to the slice size as the spec hashes a last slice; the file's
// own bytes also go to whole, if not nil.
func (s *Set) sliceSums(r io.ReaderAt, fi, n int, buf []byte, whole io.Writer) ([16]byte, uint32, error) {
	f := s.Files[fi]
	m := md5.New()
	c := crc32.NewIEEE()
	start := int64(n) * s.SliceSize
	have := max(0, min(s.SliceSize, f.Size-start))
	for off := int64(0); off < s.SliceSize; {
		b := buf[:min(int64(len(buf)), s.SliceSize-off)]
		if off < have {
			b = b[:min(int64(len(b)), have-off)]
			if err := readAt(r, b, start+off); err != nil {
				return [16]byte{}, 0, fmt.Errorf("slice %d of %s: %w", n, f.Name, err)
			}
			if whole != nil {
				whole.Write(b)
			}
		} else {
			clear(b)
		}
		m.Write(b)
		c.Write(b)
		off += int64(len(b))
	}
	var sum [16]byte
	m.Sum(sum[:0])
	return sum, c.Sum32(), nil
}

// ShortError is the error of a repair that needs more recovery slices than
// the set holds; errors.Is(err, ErrNotEnough) holds for it.
type ShortError struct {
	Damaged   int // slices to rebuild
	Available int // intact recovery slices in the set
}

func (e *ShortError) Error() string {
	return fmt.Sprintf("not enough recovery blocks: %d short (%d damaged slices, %d recovery blocks)",
		e.Damaged-e.Available, e.Damaged, e.Available)
}

// Is makes errors.Is(err, ErrNotEnough) true.
func (e *ShortError) Is(target error) bool { return target == ErrNotEnough }

// Short is how many more recovery slices the repair needs.
func (e *ShortError) Short() int { return e.Damaged - e.Available }

var _ error = (*ShortError)(nil)

var errSingular = errors.New("the recovery blocks at hand do not solve this damage (singular matrix); more recovery blocks would")

// CheckSlices checks only the given slices of file i of the set, read from
// r (whose length is the file's), and returns those that fail their
// checksums, in the order given: a caller that knows where damage can be
// (a downloader's bad pieces) reads that much of the file and no more.
func (s *Set) CheckSlices(ctx context.Context, i int, r io.ReaderAt, slices []int) ([]int, error) {
	f := s.Files[i]
	buf := make([]byte, min(s.SliceSize, verifyBuf))
	var bad []int
	for _, n := range slices {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if n < 0 || n >= len(f.Slices) {
			return nil, fmt.Errorf("%s has no slice %d", f.Name, n)
		}
		sum, crc, err := s.sliceSums(r, i, n, buf, nil)
		if err != nil {
			return nil, err
		}
		if want := f.Slices[n]; sum != want.MD5 || crc != want.CRC32 {
			bad = append(bad, n)
		}
	}
	return bad, nil
}
