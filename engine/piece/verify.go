package piece

import (
	"bytes"
	"context"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"braid/engine/metalink"
)

// Verdict is what a hash check concluded.
type Verdict int

const (
	// Unknown: there was nothing Braid can compute to check against.
	Unknown Verdict = iota
	// Match: the bytes match the hash.
	Match
	// Mismatch: the bytes do not match the hash, or are not all there.
	Mismatch
	// Covered: the whole-file hash was not computed because piece hashes at
	// least as strong, and collision-resistant, cover every byte and all of
	// them match: the file is the one the metalink describes. VerifyFull
	// computes it anyway.
	Covered
)

func (v Verdict) String() string {
	switch v {
	case Match:
		return "match"
	case Mismatch:
		return "mismatch"
	case Covered:
		return "covered"
	}
	return "unknown"
}

// Range is the run of bytes [Off, Off+N) of a file.
type Range struct {
	Off, N int64
}

// Report is what Verify found out about one file on disk. It is a plain
// value: safe to read from any goroutine once Verify has returned it.
type Report struct {
	Name     string // the metalink's name for the file
	Size     int64  // bytes on disk
	Expected int64  // bytes the metalink states; Size when it does not say

	// Layout is the division of the Expected bytes into pieces: the
	// metalink's when PieceType is set, else the engine's DefaultLength.
	Layout Layout
	// PieceType is the piece hash type that was checked, or "" when the
	// metalink has no piece hashes Braid can use: then the state of each
	// piece is unknown, Good is nil and Bad holds only Missing pieces.
	PieceType string
	// Good marks the pieces whose hash matched; nil when PieceType is "".
	Good *Bitfield
	// Bad lists, ascending, the pieces known to be bad: those whose hash
	// failed and then those the file is too short to hold (Missing), which
	// are always the last.
	Bad []int
	// BadRanges are the bytes of the Bad pieces, adjacent pieces merged, in
	// file order, within the first Expected bytes.
	BadRanges []Range
	// Missing lists the pieces, at the end, that the file is too short to
	// hold in full. They are also in Bad.
	Missing []int
	// Trailing is the number of bytes past Expected.
	Trailing int64

	// HashType is the whole-file hash that was checked (the strongest the
	// metalink has that Braid can compute), or "" when there is none.
	HashType string
	// Whole is the verdict of the whole-file hash on the file as it is on
	// disk: Mismatch when the file is short or has trailing bytes; Covered
	// when the piece hashes made computing it needless; Unknown when it was
	// skipped for that reason but some pieces failed.
	Whole Verdict
	// TruncateRepairs: the file's first Expected bytes are right (by the
	// whole-file hash, or, without one, by every piece hash), so cutting off
	// the Trailing bytes repairs it.
	TruncateRepairs bool
}

// PiecesKnown reports whether each piece was checked against its own hash.
func (r *Report) PiecesKnown() bool { return r.Good != nil }

// OK reports whether the file is verified: something was checked (the
// whole-file hash or every piece hash) and everything checked is right.
func (r *Report) OK() bool {
	if r.Size != r.Expected || len(r.Bad) > 0 || r.Whole == Mismatch {
		return false
	}
	return r.Whole == Match || r.PiecesKnown()
}

// VerifiedBy names the hash a good report rests on, as
// engine.Snapshot.VerifiedBy does: the whole-file hash type ("sha-256")
// when it matched, else the piece hash type and " pieces".
func (r *Report) VerifiedBy() string {
	if r.Whole == Match {
		return r.HashType
	}
	return r.PieceType + " pieces"
}

// Verify checks the size bytes readable from r against f: each piece
// against its hash, in parallel over workers goroutines (runtime.NumCPU()
// when workers <= 0), and the whole file against the strongest whole-file
// hash Braid can compute, in the same single read of the file. The
// whole-file hash is skipped when piece hashes at least as strong (sha-256
// or better) cover every byte: it could only repeat what they prove, and it
// is the one part that cannot run in parallel (see Covers; aria2 makes the
// same choice). VerifyFull always computes it. Reading
// takes half a megabyte per worker whatever the file's size; the report
// takes a few bytes per piece.
//
// A file shorter than f.Size has its missing pieces reported as bad; a
// longer one has its trailing bytes reported. Verify fails only when r
// cannot be read or ctx ends; a bad file is a Report, not an error. r must
// be safe for concurrent ReadAt calls, as *os.File is.
func Verify(ctx context.Context, r io.ReaderAt, size int64, f metalink.File, workers int) (*Report, error) {
	return verify(ctx, r, size, f, workers, false)
}

// VerifyFull is Verify that computes the whole-file hash even where the
// piece hashes cover every byte, to catch a metalink whose whole-file and
// piece hashes disagree.
func VerifyFull(ctx context.Context, r io.ReaderAt, size int64, f metalink.File, workers int) (*Report, error) {
	return verify(ctx, r, size, f, workers, true)
}

// Covers reports whether piece hashes of type pieces, covering every
// byte, prove as much as a whole-file hash of type whole: they must resist
// collisions (sha-256 or stronger) and be at least as strong. Where they
// do, a download and Verify skip the whole-file pass (DESIGN, "The
// engine's contract").
func Covers(pieces, whole string) bool {
	rank := func(name string) int {
		for i, s := range strength {
			if s.name == name {
				return i
			}
		}
		return len(strength)
	}
	return rank(pieces) <= rank("sha-256") && rank(pieces) <= rank(whole)
}

func verify(ctx context.Context, r io.ReaderAt, size int64, f metalink.File, workers int, full bool) (*Report, error) {
	expected := f.Size
	if expected < 0 {
		expected = size
	}
	planned := f
	planned.Size = expected
	plan := PlanFor(planned)
	rep := &Report{
		Name:      f.Name,
		Size:      size,
		Expected:  expected,
		Layout:    plan.Layout,
		PieceType: plan.Type,
		Trailing:  max(size-expected, 0),
	}

	// held is the number of pieces the file holds in full; the rest are
	// missing and need no reading.
	held := plan.Count()
	if size < expected {
		held = int(size / plan.Length)
	}
	for i := held; i < plan.Count(); i++ {
		rep.Missing = append(rep.Missing, i)
	}

	s := &scanner{r: r, layout: plan.Layout, workers: workers}
	if held < plan.Count() {
		s.layout.Size = int64(held) * plan.Length
	}
	var want []byte
	skipWhole := false
	if h, ok := Strongest(f.Hashes); ok {
		rep.HashType = h.Type
		rep.Whole = Mismatch
		skipWhole = !full && plan.Verifiable() && Covers(plan.Type, h.Type)
		if size >= expected && !skipWhole {
			var err error
			if want, err = hex.DecodeString(h.Value); err != nil {
				// The metalink reader checks hex, but a File can be built
				// by hand; a hash that cannot be read cannot match.
				want = nil
			}
			if s.whole, err = NewHash(h.Type); err != nil {
				return nil, err
			}
		}
	}
	var good []bool
	if plan.Verifiable() {
		s.typ = plan.Type
		good = make([]bool, held)
		s.done = func(i int, sum []byte) { good[i] = bytes.Equal(sum, plan.Hashes[i]) }
	}
	if s.whole != nil || s.typ != "" {
		if err := s.run(ctx); err != nil {
			return nil, fmt.Errorf("verify %s: %w", f.Name, err)
		}
	}

	prefixOK := false
	if s.whole != nil {
		prefixOK = want != nil && bytes.Equal(s.whole.Sum(nil), want)
		if prefixOK && rep.Trailing == 0 {
			rep.Whole = Match
		}
	}
	if plan.Verifiable() {
		rep.Good = NewBitfield(plan.Count())
		for i, ok := range good {
			if ok {
				rep.Good.Set(i)
			} else {
				rep.Bad = append(rep.Bad, i)
			}
		}
		if s.whole == nil {
			prefixOK = len(rep.Bad) == 0
		}
	}
	if skipWhole && len(rep.Missing) == 0 && rep.Trailing == 0 {
		rep.Whole = Covered
		if len(rep.Bad) > 0 {
			rep.Whole = Unknown
		}
	}
	rep.Bad = append(rep.Bad, rep.Missing...)
	rep.TruncateRepairs = rep.Trailing > 0 && len(rep.Bad) == 0 && prefixOK
	rep.BadRanges = plan.Ranges(rep.Bad)
	return rep, nil
}

// VerifyFile verifies the file f.Name under root against f (see Verify).
// Opening through root means a name can never reach outside it. A file
// that is not there fails with an error that matches fs.ErrNotExist.
func VerifyFile(ctx context.Context, root *os.Root, f metalink.File, workers int) (*Report, error) {
	return verifyFile(ctx, root, f, workers, false)
}

// VerifyFileFull is VerifyFile that always computes the whole-file hash
// (see VerifyFull).
func VerifyFileFull(ctx context.Context, root *os.Root, f metalink.File, workers int) (*Report, error) {
	return verifyFile(ctx, root, f, workers, true)
}

func verifyFile(ctx context.Context, root *os.Root, f metalink.File, workers int, full bool) (*Report, error) {
	file, err := root.Open(filepath.FromSlash(f.Name))
	if err != nil {
		return nil, fmt.Errorf("verify: %w", err)
	}
	defer file.Close()
	st, err := file.Stat()
	if err != nil {
		return nil, fmt.Errorf("verify %s: %w", f.Name, err)
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("verify %s: not a regular file", f.Name)
	}
	return verify(ctx, file, st.Size(), f, workers, full)
}

// Ranges returns the bytes of the given ascending pieces, adjacent pieces
// merged into one range.
func (l Layout) Ranges(pieces []int) []Range {
	var out []Range
	for _, i := range pieces {
		off, n := l.Bounds(i)
		if k := len(out) - 1; k >= 0 && out[k].Off+out[k].N == off {
			out[k].N += n
			continue
		}
		out = append(out, Range{Off: off, N: n})
	}
	return out
}
