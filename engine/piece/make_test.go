package piece

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"testing"
)

func TestDefaultPieceLength(t *testing.T) {
	tests := []struct {
		size, want int64
	}{
		{0, MinPieceLength},
		{1, MinPieceLength},
		{2048 * MinPieceLength, MinPieceLength},
		{2048*MinPieceLength + 1, 2 * MinPieceLength},
		{1 << 30, 512 << 10},
		{10 << 30, 8 << 20},
		{1 << 40, MaxPieceLength},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.size), func(t *testing.T) {
			if got := DefaultPieceLength(tt.size); got != tt.want {
				t.Errorf("DefaultPieceLength(%d) = %d, want %d", tt.size, got, tt.want)
			}
		})
	}
}

func TestDescribe(t *testing.T) {
	tests := []struct {
		name   string
		size   int
		length int64
		pieces int
	}{
		{"empty", 0, 0, 0},
		{"one byte", 1, 0, 1},
		{"default length", 3*MinPieceLength + 5, 0, 4},
		{"size a multiple of the length", 8 * 1000, 1000, 8},
		{"pieces larger than a read", 3<<20 + 7, 3 << 19, 3},
		{"many pieces to a read", 50_000, 777, 65},
	}
	for _, tt := range tests {
		for _, workers := range []int{1, 3} {
			t.Run(fmt.Sprintf("%s/workers=%d", tt.name, workers), func(t *testing.T) {
				data := randomBytes(tt.size, byte(tt.size))
				f, err := Describe(context.Background(), bytes.NewReader(data), int64(len(data)), "dir/f.bin", tt.length, workers)
				if err != nil {
					t.Fatal(err)
				}
				length := tt.length
				if length == 0 {
					length = MinPieceLength
				}
				// The expected description is built by hand with
				// crypto/sha256 over slices of data.
				want := describeBytes("dir/f.bin", data, length, "sha-256", "sha-256")
				if f.Name != want.Name || f.Size != want.Size || !slices.Equal(f.Hashes, want.Hashes) {
					t.Errorf("Describe = %q, %d bytes, %v; want %q, %d, %v", f.Name, f.Size, f.Hashes, want.Name, want.Size, want.Hashes)
				}
				if tt.pieces == 0 {
					if f.Pieces != nil {
						t.Errorf("empty file has pieces %+v", f.Pieces)
					}
					return
				}
				if f.Pieces == nil {
					t.Fatal("no pieces")
				}
				if f.Pieces.Type != "sha-256" || f.Pieces.Length != length || len(f.Pieces.Hashes) != tt.pieces {
					t.Errorf("pieces: %s, %d bytes, %d hashes; want sha-256, %d, %d",
						f.Pieces.Type, f.Pieces.Length, len(f.Pieces.Hashes), length, tt.pieces)
				}
				if !slices.Equal(f.Pieces.Hashes, want.Pieces.Hashes) {
					t.Error("piece hashes differ from sha-256 of each piece")
				}

				// What Describe says, Verify accepts, and a flipped byte it
				// finds in the right piece.
				rep, err := Verify(context.Background(), bytes.NewReader(data), int64(len(data)), f, workers)
				if err != nil || !rep.OK() {
					t.Fatalf("Verify of the described file: %+v, %v", rep, err)
				}
				bad := flip(data, int64(len(data)-1))
				rep, err = Verify(context.Background(), bytes.NewReader(bad), int64(len(bad)), f, workers)
				if err != nil || rep.OK() || !slices.Equal(rep.Bad, []int{tt.pieces - 1}) {
					t.Fatalf("Verify with the last byte flipped: bad %v, %v; want [%d]", rep.Bad, err, tt.pieces-1)
				}
			})
		}
	}
}

func TestDescribeNegativeSize(t *testing.T) {
	if _, err := Describe(context.Background(), bytes.NewReader(nil), -1, "x", 0, 1); err == nil {
		t.Fatal("Describe accepted a negative size")
	}
}
