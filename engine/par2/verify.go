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
	buf := make([]byte, s.SliceSize)
	whole := md5.New()
	wholeOK := true
	for n, want := range f.Slices {
		if err := ctx.Err(); err != nil {
			return rep, err
		}
		start := int64(n) * s.SliceSize
		end := min(start+s.SliceSize, f.Size)
		avail := min(end, size) - start
		if avail < end-start {
			// Cut short: what is there cannot be the slice, and the
			// whole-file hash cannot match either.
			rep.Damaged = append(rep.Damaged, n)
			wholeOK = false
			continue
		}
		b := buf[:end-start]
		if err := readAt(r, b, start); err != nil {
			return rep, fmt.Errorf("slice %d of %s: %w", n, f.Name, err)
		}
		clear(buf[len(b):])
		if wholeOK {
			whole.Write(b)
		}
		if md5.Sum(buf) != want.MD5 || crc32.ChecksumIEEE(buf) != want.CRC32 {
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
