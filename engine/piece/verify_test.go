package piece

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"braid/engine/metalink"
)

// verifyCase is a file as the metalink describes it, what is on disk
// instead, and what Verify must find.
type verifyCase struct {
	name   string
	f      metalink.File
	onDisk []byte

	bad       []int
	missing   []int
	ranges    []Range
	trailing  int64
	pieceType string  // "": pieces unknown
	whole     Verdict // with VerifyFull
	// quick is Whole with Verify where the piece hashes make the
	// whole-file hash needless (Covered, or Unknown when pieces fail);
	// Unknown here means the same as whole.
	quick    Verdict
	truncate bool // TruncateRepairs
	ok       bool
}

func verifyCases() []verifyCase {
	const L = 4096
	data := randomBytes(10*L+123, 10) // 11 pieces, the last of 123 bytes
	f := describeBytes("data.bin", data, L, "sha-256", "sha-256")
	noPieces := describeBytes("data.bin", data, 0, "", "sha-256")
	oddPieces := describeBytes("data.bin", data, L, "sha-256", "sha-256")
	oddPieces.Pieces.Type = "blake3" // a type Braid cannot compute

	const big = 3 << 19 // 1.5 MiB pieces: each is read in two blocks
	bigData := randomBytes(2*big+200<<10, 11)
	const small = 1000 // many pieces to a block
	smallData := randomBytes(70*small, 12)

	return []verifyCase{
		{name: "intact", f: f, onDisk: data, pieceType: "sha-256", whole: Match, quick: Covered, ok: true},
		{
			name: "flipped pieces 2, 5 and 6", f: f, onDisk: flip(data, 2*L+7, 5*L, 6*L+L-1),
			bad: []int{2, 5, 6}, ranges: []Range{{2 * L, L}, {5 * L, 2 * L}},
			pieceType: "sha-256", whole: Mismatch, quick: skippedBad,
		},
		{
			name: "flipped first and short last piece", f: f, onDisk: flip(data, 0, 10*L+122),
			bad: []int{0, 10}, ranges: []Range{{0, L}, {10 * L, 123}},
			pieceType: "sha-256", whole: Mismatch, quick: skippedBad,
		},
		{
			name: "truncated mid piece", f: f, onDisk: data[:7*L+100],
			bad: []int{7, 8, 9, 10}, missing: []int{7, 8, 9, 10}, ranges: []Range{{7 * L, 3*L + 123}},
			pieceType: "sha-256", whole: Mismatch,
		},
		{
			name: "truncated at a piece boundary", f: f, onDisk: data[:9*L],
			bad: []int{9, 10}, missing: []int{9, 10}, ranges: []Range{{9 * L, L + 123}},
			pieceType: "sha-256", whole: Mismatch,
		},
		{
			name: "truncated inside the short last piece", f: f, onDisk: data[:10*L+122],
			bad: []int{10}, missing: []int{10}, ranges: []Range{{10 * L, 123}},
			pieceType: "sha-256", whole: Mismatch,
		},
		{
			name: "truncated and flipped", f: f, onDisk: flip(data, 3*L+1)[:7*L+5],
			bad: []int{3, 7, 8, 9, 10}, missing: []int{7, 8, 9, 10}, ranges: []Range{{3 * L, L}, {7 * L, 3*L + 123}},
			pieceType: "sha-256", whole: Mismatch,
		},
		{
			name: "empty on disk", f: f, onDisk: nil,
			bad: []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, missing: []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10},
			ranges: []Range{{0, 10*L + 123}}, pieceType: "sha-256", whole: Mismatch,
		},
		{
			name: "trailing garbage", f: f, onDisk: append(slices.Clone(data), randomBytes(999, 13)...),
			trailing: 999, pieceType: "sha-256", whole: Mismatch, truncate: true,
		},
		{
			name: "trailing garbage and a flipped piece", f: f, onDisk: append(flip(data, 4*L), 1, 2, 3),
			bad: []int{4}, ranges: []Range{{4 * L, L}}, trailing: 3, pieceType: "sha-256", whole: Mismatch,
		},
		{
			// The whole-file hash matches the first Expected bytes, but a
			// piece hash disagrees: cutting the tail off is not enough.
			name: "trailing garbage, piece hash disagrees with the whole",
			f: func() metalink.File {
				g := describeBytes("data.bin", data, L, "sha-256", "sha-256")
				g.Pieces.Hashes[2] = hexSum("sha-256", data[:L])
				return g
			}(),
			onDisk: append(slices.Clone(data), 0),
			bad:    []int{2}, ranges: []Range{{2 * L, L}}, trailing: 1, pieceType: "sha-256", whole: Mismatch,
		},
		{
			name: "empty file", f: describeBytes("empty", nil, 0, "", "sha-256"), onDisk: nil,
			whole: Match, ok: true,
		},
		{name: "no piece hashes, intact", f: noPieces, onDisk: data, whole: Match, ok: true},
		{name: "no piece hashes, flipped", f: noPieces, onDisk: flip(data, 5*L), whole: Mismatch},
		{
			// Without piece hashes the missing bytes are known, and the
			// engine's 1 MiB piece holding them is what a resume fetches.
			name: "no piece hashes, truncated", f: noPieces, onDisk: data[:L],
			bad: []int{0}, missing: []int{0}, ranges: []Range{{0, 10*L + 123}}, whole: Mismatch,
		},
		{
			name: "no piece hashes, trailing garbage", f: noPieces, onDisk: append(slices.Clone(data), 0),
			trailing: 1, whole: Mismatch, truncate: true,
		},
		{name: "unsupported piece type, intact", f: oddPieces, onDisk: data, whole: Match, ok: true},
		{name: "unsupported piece type, flipped", f: oddPieces, onDisk: flip(data, 1), whole: Mismatch},
		{
			name: "no supported hash at all", onDisk: data,
			f: metalink.File{Name: "x", Size: int64(len(data)), Hashes: []metalink.Hash{{Type: "blake3", Value: "00"}}},
		},
		{
			name: "strongest hash decides: sha-512 right, md5 wrong", onDisk: data,
			f: func() metalink.File {
				f := describeBytes("x", data, 0, "", "md5", "sha-512")
				f.Hashes[0].Value = hexSum("md5", data[1:])
				return f
			}(),
			whole: Match, ok: true,
		},
		{
			name: "strongest hash decides: sha-512 wrong, md5 right", onDisk: data,
			f: func() metalink.File {
				f := describeBytes("x", data, 0, "", "md5", "sha-512")
				f.Hashes[1].Value = hexSum("sha-512", data[1:])
				return f
			}(),
			whole: Mismatch,
		},
		{
			name: "piece hashes only, flipped", onDisk: flip(data, 8*L+8),
			f:   describeBytes("x", data, L, "sha-1"),
			bad: []int{8}, ranges: []Range{{8 * L, L}}, pieceType: "sha-1",
		},
		{
			name: "piece hashes only, trailing garbage", onDisk: append(slices.Clone(data), 9),
			f:        describeBytes("x", data, L, "md5"),
			trailing: 1, pieceType: "md5", truncate: true,
		},
		{
			name: "unknown size: the file on disk is the whole file", onDisk: data,
			f: func() metalink.File {
				f := describeBytes("x", data, L, "sha-256", "sha-256")
				f.Size = -1
				return f
			}(),
			pieceType: "sha-256", whole: Match, quick: Covered, ok: true,
		},
		{
			name: "pieces over several blocks", f: describeBytes("x", bigData, big, "sha-256", "sha-256"),
			onDisk: flip(bigData, big+1<<20, 2*big+100),
			bad:    []int{1, 2}, ranges: []Range{{big, big + 200<<10}},
			pieceType: "sha-256", whole: Mismatch, quick: skippedBad,
		},
		{
			name: "many pieces to a block", f: describeBytes("x", smallData, small, "sha-256", "sha-256"),
			onDisk: flip(smallData, 0, 33*small+small-1, 34*small, 69*small+5),
			bad:    []int{0, 33, 34, 69}, ranges: []Range{{0, small}, {33 * small, 2 * small}, {69 * small, small}},
			pieceType: "sha-256", whole: Mismatch, quick: skippedBad,
		},
	}
}

// skippedBad marks a case whose pieces fail while covering the whole-file
// hash: Verify skips that hash, so its verdict is Unknown.
const skippedBad Verdict = -1

func TestVerify(t *testing.T) {
	for _, tt := range verifyCases() {
		for _, workers := range []int{1, 2, 5} {
			for _, full := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/workers=%d/full=%v", tt.name, workers, full), func(t *testing.T) {
					dir := writeFile(t, tt.f.Name, tt.onDisk)
					check, want := VerifyFile, tt
					if full {
						check = VerifyFileFull
					} else if tt.quick == skippedBad {
						want.whole = Unknown
					} else if tt.quick != Unknown {
						want.whole = tt.quick
					}
					rep, err := check(context.Background(), openRoot(t, dir), tt.f, workers)
					if err != nil {
						t.Fatal(err)
					}
					checkReport(t, rep, want)
				})
			}
		}
	}
}

// The whole-file hash is skipped only when the pieces are collision
// resistant and at least as strong as it.
func TestVerifyCoversOnlyWithStrongPieces(t *testing.T) {
	const L = 4096
	data := randomBytes(5*L, 13)
	for _, c := range []struct {
		pieces, whole string
		want          Verdict
	}{
		{"sha-256", "sha-256", Covered},
		{"sha-512", "sha-256", Covered},
		{"sha-256", "sha-512", Match},
		{"sha-1", "sha-256", Match},
		{"md5", "md5", Match},
		{"sha-1", "sha-1", Match},
	} {
		t.Run(c.pieces+" pieces, "+c.whole+" whole", func(t *testing.T) {
			f := describeBytes("x", data, L, c.pieces, c.whole)
			rep, err := Verify(context.Background(), bytes.NewReader(data), int64(len(data)), f, 2)
			if err != nil {
				t.Fatal(err)
			}
			if rep.Whole != c.want || !rep.OK() {
				t.Fatalf("Whole = %v, OK = %v; want %v, true", rep.Whole, rep.OK(), c.want)
			}
		})
	}
}

func checkReport(t *testing.T, rep *Report, tt verifyCase) {
	t.Helper()
	if rep.Size != int64(len(tt.onDisk)) {
		t.Errorf("Size = %d, want %d", rep.Size, len(tt.onDisk))
	}
	if !slices.Equal(rep.Bad, tt.bad) {
		t.Errorf("Bad = %v, want %v", rep.Bad, tt.bad)
	}
	if !slices.Equal(rep.Missing, tt.missing) {
		t.Errorf("Missing = %v, want %v", rep.Missing, tt.missing)
	}
	if !slices.Equal(rep.BadRanges, tt.ranges) {
		t.Errorf("BadRanges = %v, want %v", rep.BadRanges, tt.ranges)
	}
	if rep.Trailing != tt.trailing {
		t.Errorf("Trailing = %d, want %d", rep.Trailing, tt.trailing)
	}
	if rep.PieceType != tt.pieceType || rep.PiecesKnown() != (tt.pieceType != "") {
		t.Errorf("PieceType = %q, PiecesKnown = %v; want %q", rep.PieceType, rep.PiecesKnown(), tt.pieceType)
	}
	if rep.Whole != tt.whole {
		t.Errorf("Whole = %v, want %v", rep.Whole, tt.whole)
	}
	if rep.TruncateRepairs != tt.truncate {
		t.Errorf("TruncateRepairs = %v, want %v", rep.TruncateRepairs, tt.truncate)
	}
	if rep.OK() != tt.ok {
		t.Errorf("OK() = %v, want %v", rep.OK(), tt.ok)
	}
	if rep.PiecesKnown() {
		// Good and Bad partition the pieces.
		if rep.Good.Len() != rep.Layout.Count() || rep.Good.Count()+len(rep.Bad) != rep.Layout.Count() {
			t.Errorf("%d good + %d bad pieces of %d", rep.Good.Count(), len(rep.Bad), rep.Layout.Count())
		}
		for _, i := range rep.Bad {
			if rep.Good.Has(i) {
				t.Errorf("piece %d is both good and bad", i)
			}
		}
	}
}

// failingReader fails every read that includes the byte at off, like a
// disk with one bad sector.
type failingReader struct {
	r   io.ReaderAt
	off int64
	err error
}

func (f failingReader) ReadAt(p []byte, off int64) (int, error) {
	if off <= f.off && f.off < off+int64(len(p)) {
		return 0, f.err
	}
	return f.r.ReadAt(p, off)
}

func TestVerifyErrors(t *testing.T) {
	data := randomBytes(40<<20/10, 20) // 4 MiB in 64 KiB pieces
	f := describeBytes("data.bin", data, 64<<10, "sha-256", "sha-256")
	diskErr := errors.New("input/output error")

	t.Run("read error names the piece", func(t *testing.T) {
		r := failingReader{r: bytes.NewReader(data), off: 3 << 20, err: diskErr}
		_, err := Verify(context.Background(), r, int64(len(data)), f, 2)
		if !errors.Is(err, diskErr) {
			t.Fatalf("err = %v, want the read error", err)
		}
		if want := "verify data.bin: piece 48"; !bytes.Contains([]byte(err.Error()), []byte(want)) {
			t.Errorf("err = %q, want it to name %q", err, want)
		}
	})
	t.Run("file shrank while reading", func(t *testing.T) {
		// The file claims more bytes than it has: as if cut while read.
		_, err := Verify(context.Background(), bytes.NewReader(data[:2<<20]), int64(len(data)), f, 2)
		if !errors.Is(err, errShortRead) {
			t.Fatalf("err = %v, want errShortRead", err)
		}
	})
	t.Run("cancelled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, err := Verify(ctx, bytes.NewReader(data), int64(len(data)), f, 2)
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
	})
	t.Run("a claimed exabyte stays in bounds", func(t *testing.T) {
		g := metalink.File{Name: "x", Size: 1 << 60, Hashes: f.Hashes}
		rep, err := Verify(context.Background(), bytes.NewReader(data), int64(len(data)), g, 2)
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Missing) != 1<<20 || !slices.Equal(rep.BadRanges, []Range{{0, 1 << 60}}) || rep.Whole != Mismatch {
			t.Fatalf("%d missing pieces, bad ranges %v, whole %v; want 1<<20, [{0 1<<60}], mismatch",
				len(rep.Missing), rep.BadRanges, rep.Whole)
		}
	})
	t.Run("missing file", func(t *testing.T) {
		_, err := VerifyFile(context.Background(), openRoot(t, t.TempDir()), f, 2)
		if !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("err = %v, want fs.ErrNotExist", err)
		}
	})
	t.Run("directory", func(t *testing.T) {
		dir := t.TempDir()
		if err := os.Mkdir(filepath.Join(dir, f.Name), 0o755); err != nil {
			t.Fatal(err)
		}
		if _, err := VerifyFile(context.Background(), openRoot(t, dir), f, 2); err == nil {
			t.Fatal("verifying a directory succeeded")
		}
	})
	t.Run("name outside the root", func(t *testing.T) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "outside"), data, 0o644); err != nil {
			t.Fatal(err)
		}
		inner := filepath.Join(dir, "inner")
		if err := os.Mkdir(inner, 0o755); err != nil {
			t.Fatal(err)
		}
		g := f
		g.Name = "../outside"
		if _, err := VerifyFile(context.Background(), openRoot(t, inner), g, 2); err == nil {
			t.Fatal("VerifyFile read a file outside its root")
		}
	})
}
