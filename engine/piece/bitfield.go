package piece

import (
	"fmt"
	"math/bits"
)

// Bitfield records which pieces are done. It is not safe for concurrent
// use; its owner guards it.
type Bitfield struct {
	n    int
	bits []uint64
}

// NewBitfield returns an empty bitfield for n pieces.
func NewBitfield(n int) *Bitfield {
	return &Bitfield{n: n, bits: make([]uint64, (n+63)/64)}
}

// Len is the number of pieces.
func (b *Bitfield) Len() int { return b.n }

// Set marks piece i done.
func (b *Bitfield) Set(i int) { b.bits[i/64] |= 1 << (i % 64) }

// Clear marks piece i not done.
func (b *Bitfield) Clear(i int) { b.bits[i/64] &^= 1 << (i % 64) }

// Has reports whether piece i is done.
func (b *Bitfield) Has(i int) bool { return b.bits[i/64]&(1<<(i%64)) != 0 }

// Count is the number of pieces done.
func (b *Bitfield) Count() int {
	c := 0
	for _, w := range b.bits {
		c += bits.OnesCount64(w)
	}
	return c
}

// Full reports whether every piece is done.
func (b *Bitfield) Full() bool { return b.Count() == b.n }

// Clone returns an independent copy.
func (b *Bitfield) Clone() *Bitfield {
	return &Bitfield{n: b.n, bits: append([]uint64(nil), b.bits...)}
}

// MarshalBinary encodes the bitfield as bytes, piece 0 in the high bit of
// the first byte (the BitTorrent order), for storage.
func (b *Bitfield) MarshalBinary() ([]byte, error) {
	out := make([]byte, (b.n+7)/8)
	for i := 0; i < b.n; i++ {
		if b.Has(i) {
			out[i/8] |= 0x80 >> (i % 8)
		}
	}
	return out, nil
}

// UnmarshalBitfield decodes what MarshalBinary wrote for n pieces.
func UnmarshalBitfield(data []byte, n int) (*Bitfield, error) {
	if len(data) != (n+7)/8 {
		return nil, fmt.Errorf("bitfield of %d bytes for %d pieces", len(data), n)
	}
	b := NewBitfield(n)
	for i := 0; i < n; i++ {
		if data[i/8]&(0x80>>(i%8)) != 0 {
			b.Set(i)
		}
	}
	return b, nil
}
