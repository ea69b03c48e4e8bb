package piece

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"

	"braid/engine/metalink"
)

// Piece lengths that DefaultPieceLength chooses between.
const (
	// MinPieceLength keeps per-piece overhead (a hash in the document, a
	// request per piece in the worst case) small next to the piece.
	MinPieceLength = 256 << 10
	// MaxPieceLength bounds what a bad piece costs to fetch again.
	MaxPieceLength = 16 << 20
	// TargetPieces is the most pieces DefaultPieceLength gives a file of
	// up to 32 GiB: enough to repair a file cheaply, few enough that the
	// document stays small. Smaller files get fewer, of MinPieceLength.
	TargetPieces = 2048
)

// DefaultPieceLength returns the piece length `braid make` uses for a file
// of size bytes: the smallest power of two from MinPieceLength up that
// divides the file into at most TargetPieces pieces, and no more than
// MaxPieceLength (a file over 32 GiB gets more pieces instead).
func DefaultPieceLength(size int64) int64 {
	l := int64(MinPieceLength)
	for l < MaxPieceLength && (size+l-1)/l > TargetPieces {
		l *= 2
	}
	return l
}

// Describe hashes the size bytes readable from r and returns the metalink
// description of a file called name: its size, its whole-file sha-256, and
// the sha-256 of each piece of pieceLength bytes (DefaultPieceLength(size)
// when pieceLength <= 0). The pieces are hashed in parallel over workers
// goroutines (runtime.NumCPU() when workers <= 0) in the same single read
// that feeds the whole-file hash. An empty file has no pieces. The name is
// used as given; the caller checks it with metalink.SafeName.
func Describe(ctx context.Context, r io.ReaderAt, size int64, name string, pieceLength int64, workers int) (metalink.File, error) {
	if size < 0 {
		return metalink.File{}, fmt.Errorf("describe %s: negative size %d", name, size)
	}
	if pieceLength <= 0 {
		pieceLength = DefaultPieceLength(size)
	}
	layout := Layout{Size: size, Length: pieceLength}
	sums := make([]string, layout.Count())
	s := &scanner{
		r:       r,
		layout:  layout,
		typ:     "sha-256",
		whole:   sha256.New(),
		workers: workers,
		done:    func(i int, sum []byte) { sums[i] = hex.EncodeToString(sum) },
	}
	if err := s.run(ctx); err != nil {
		return metalink.File{}, fmt.Errorf("describe %s: %w", name, err)
	}
	f := metalink.File{
		Name:   name,
		Size:   size,
		Hashes: []metalink.Hash{{Type: "sha-256", Value: hex.EncodeToString(s.whole.Sum(nil))}},
	}
	if len(sums) > 0 {
		f.Pieces = &metalink.Pieces{Type: "sha-256", Length: pieceLength, Hashes: sums}
	}
	return f, nil
}
