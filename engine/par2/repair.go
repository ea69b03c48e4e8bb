package par2

import (
	"context"
	"fmt"
	"io"
	"sort"
)

// ReadWriterAt is a file of the set as Repair needs it.
type ReadWriterAt interface {
	io.ReaderAt
	io.WriterAt
}

// truncater is the optional power to cut a file to its length (an
// *os.File has it); a file longer than the set says is cut after repair.
type truncater interface{ Truncate(int64) error }

// RepairOptions tune Repair; the zero value is the default.
type RepairOptions struct {
	// Memory bounds the rebuilt slice data held at once (DefaultMemory).
	Memory int64
}

// Repair rebuilds the damaged slices reports name (from Verify, one per
// file that has any) and writes them into files (files[i] is Files[i]),
// then checks each rebuilt slice against its MD5. It returns how many
// slices it rebuilt. With fewer intact recovery slices than damaged slices
// it returns a *ShortError and writes nothing.
func (s *Set) Repair(ctx context.Context, files []ReadWriterAt, reports []FileReport, opt RepairOptions) (int, error) {
	if len(files) != len(s.Files) {
		return 0, fmt.Errorf("repair needs the %d files of the set, got %d", len(s.Files), len(files))
	}
	damaged := map[int]bool{} // global slice numbers
	for _, rep := range reports {
		f := s.Files[rep.File]
		for _, n := range rep.Damaged {
			damaged[f.First+n] = true
		}
	}
	if len(damaged) == 0 {
		return 0, s.cut(files, reports)
	}
	if len(damaged) > len(s.recovery) {
		return 0, &ShortError{Damaged: len(damaged), Available: len(s.recovery)}
	}
	missing := make([]int, 0, len(damaged))
	for g := range damaged {
		missing = append(missing, g)
	}
	sort.Ints(missing)
	exps := make([]uint32, 0, len(s.recovery))
	for e := range s.recovery {
		exps = append(exps, e)
	}
	sort.Slice(exps, func(i, j int) bool { return exps[i] < exps[j] })

	consts := inputConstants(s.Slices())
	m := len(missing)
	// Try the lowest exponents first; if that matrix is singular (rare with
	// PAR2's constants), slide the window of exponents along.
	var inv [][]uint16
	var use []uint32
	for start := 0; start+m <= len(exps); start++ {
		use = exps[start : start+m]
		a := make([][]uint16, m)
		for j, e := range use {
			a[j] = make([]uint16, m)
			for k, g := range missing {
				a[j][k] = gfPow(consts[g], e)
			}
		}
		var ok bool
		if inv, ok = invert(a); ok {
			break
		}
		inv = nil
	}
	if inv == nil {
		return 0, errSingular
	}

	// D_missing = inv × (R_use + Σ_known c_i^e D_i): the inputs are the
	// chosen recovery slices and every intact input slice.
	var inputs []sliceSource
	var cols [][]uint16 // cols[input][k], transposed below
	for j, e := range use {
		rs := s.recovery[e]
		inputs = append(inputs, func(b []byte, off int64) error { return readAt(rs.r, b, rs.off+off) })
		col := make([]uint16, m)
		for k := range col {
			col[k] = inv[k][j]
		}
		cols = append(cols, col)
	}
	for fi, f := range s.Files {
		for n := range f.Slices {
			g := f.First + n
			if damaged[g] {
				continue
			}
			col := make([]uint16, m)
			nonzero := false
			for k := range col {
				var c uint16
				for j, e := range use {
					c ^= gfMul(inv[k][j], gfPow(consts[g], e))
				}
				col[k] = c
				nonzero = nonzero || c != 0
			}
			if !nonzero {
				continue
			}
			inputs = append(inputs, s.fileSlice(files[fi], fi, n))
			cols = append(cols, col)
		}
	}
	coef := make([][]uint16, m)
	for k := range coef {
		coef[k] = make([]uint16, len(cols))
		for i, col := range cols {
			coef[k][i] = col[k]
		}
	}
	where := make([][2]int, m) // file, slice of each missing slice
	for k, g := range missing {
		where[k] = s.locate(g)
	}
	err := combine(ctx, s.SliceSize, inputs, coef, opt.Memory, func(k int, off int64, b []byte) error {
		fi, n := where[k][0], where[k][1]
		f := s.Files[fi]
		start := int64(n)*s.SliceSize + off
		if start >= f.Size {
			return nil
		}
		b = b[:min(int64(len(b)), f.Size-start)]
		if _, err := files[fi].WriteAt(b, start); err != nil {
			return fmt.Errorf("write slice %d of %s: %w", n, f.Name, err)
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	if err := s.cut(files, reports); err != nil {
		return m, err
	}
	// Read back what was written: a disk error or a set that lies shows
	// here, not later.
	buf := make([]byte, min(s.SliceSize, verifyBuf))
	for _, w := range where {
		fi, n := w[0], w[1]
		sum, crc, err := s.sliceSums(files[fi], fi, n, buf, nil)
		if err != nil {
			return m, err
		}
		if want := s.Files[fi].Slices[n]; sum != want.MD5 || crc != want.CRC32 {
			return m, fmt.Errorf("slice %d of %s is still damaged after repair", n, s.Files[fi].Name)
		}
	}
	return m, nil
}

// cut shortens the files that are longer than the set says.
func (s *Set) cut(files []ReadWriterAt, reports []FileReport) error {
	for _, rep := range reports {
		f := s.Files[rep.File]
		if rep.Size <= f.Size {
			continue
		}
		t, ok := files[rep.File].(truncater)
		if !ok {
			return fmt.Errorf("%s is longer than the set says and cannot be cut", f.Name)
		}
		if err := t.Truncate(f.Size); err != nil {
			return fmt.Errorf("cut %s to its length: %w", f.Name, err)
		}
	}
	return nil
}

// locate maps a global slice number to its file and the slice in it.
func (s *Set) locate(g int) [2]int {
	i := sort.Search(len(s.Files), func(i int) bool { return s.Files[i].First+len(s.Files[i].Slices) > g })
	return [2]int{i, g - s.Files[i].First}
}

// fileSlice reads part of slice n of file fi, zeros past the file's end.
func (s *Set) fileSlice(r io.ReaderAt, fi, n int) sliceSource {
	f := s.Files[fi]
	base := int64(n) * s.SliceSize
	return func(b []byte, off int64) error {
		start := base + off
		have := max(0, min(int64(len(b)), f.Size-start))
		if have > 0 {
			if err := readAt(r, b[:have], start); err != nil {
				return fmt.Errorf("slice %d of %s: %w", n, f.Name, err)
			}
		}
		clear(b[have:])
		return nil
	}
}
