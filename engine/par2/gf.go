package par2

import (
	"encoding/binary"
	"sync"
)

// PAR2's field is GF(2^16) built on the polynomial x^16+x^12+x^3+x+1
// (0x1100B), with 2 as its generator; the spec and par2cmdline agree.
const (
	gfPoly  = 0x1100B
	gfOrder = 65535 // the multiplicative group's order
)

var (
	gfOnce sync.Once
	gfExp  [2 * gfOrder]uint16 // doubled so a sum of two logs needs no modulo
	gfLog  [1 << 16]uint16
)

// gfTables builds gfExp and gfLog on first use, not at start: most runs
// of braid compute no parity, and building them was 0.4 ms of every
// start. inputConstants calls it, and every computation begins there.
func gfTables() { gfOnce.Do(buildTables) }

func buildTables() {
	x := 1
	for i := 0; i < gfOrder; i++ {
		gfExp[i] = uint16(x)
		gfExp[i+gfOrder] = uint16(x)
		gfLog[x] = uint16(i)
		x <<= 1
		if x&0x10000 != 0 {
			x ^= gfPoly
		}
	}
}

func gfMul(a, b uint16) uint16 {
	if a == 0 || b == 0 {
		return 0
	}
	return gfExp[int(gfLog[a])+int(gfLog[b])]
}

func gfInv(a uint16) uint16 {
	// a is never 0 here: callers divide only by a pivot they checked.
	return gfExp[gfOrder-int(gfLog[a])]
}

// gfPow is a^e; a^0 is 1 for every a, as the spec's recovery slice 0 (the
// XOR of every input slice) needs.
func gfPow(a uint16, e uint32) uint16 {
	if e == 0 {
		return 1
	}
	if a == 0 {
		return 0
	}
	return gfExp[(uint64(gfLog[a])*uint64(e))%gfOrder]
}

// inputConstants returns the constant of each of the first n input slices:
// 2^k for the k in 1, 2, 4, 7, 8, ... that are not multiples of 3, 5, 17 or
// 257 (spec, "Recovery Slice packet"). Exactly 32768 such k lie below
// 65535, which is why a set holds at most 32768 input slices.
func inputConstants(n int) []uint16 {
	gfTables()
	out := make([]uint16, 0, n)
	for k := 1; len(out) < n && k < gfOrder; k++ {
		if k%3 != 0 && k%5 != 0 && k%17 != 0 && k%257 != 0 {
			out = append(out, gfExp[k])
		}
	}
	return out
}

// MaxSlices is the most input slices a PAR2 set can have (the number of
// input slice constants the spec defines).
const MaxSlices = 32768

// mulTable is the product of one coefficient with every 16-bit word, split
// into the low and the high byte: c*w = lo[w&0xff] ^ hi[w>>8]. Two 256-entry
// tables fit in L1 where a 65536-entry one would not, and building them costs
// 512 words against the hundreds of thousands of words a slice holds.
type mulTable struct {
	lo, hi [256]uint16
}

func (t *mulTable) fill(c uint16) {
	// Each entry is the XOR of the products of its set bits, so build the
	// tables from the 16 single-bit products.
	t.lo[0], t.hi[0] = 0, 0
	for b := 0; b < 8; b++ {
		pl := gfMul(c, uint16(1)<<b)
		ph := gfMul(c, uint16(1)<<(b+8))
		step := 1 << b
		for x := 0; x < step; x++ {
			t.lo[step+x] = t.lo[x] ^ pl
			t.hi[step+x] = t.hi[x] ^ ph
		}
	}
}

// mulAdd adds c*src to dst word by word (16-bit little-endian words, as the
// spec reads slices); len(src) == len(dst) and both are even.
func (t *mulTable) mulAdd(dst, src []byte) {
	lo, hi := &t.lo, &t.hi
	n := len(src) &^ 7
	dst = dst[:len(src)]
	for i := 0; i < n; i += 8 {
		s := binary.LittleEndian.Uint64(src[i : i+8])
		r := uint64(lo[byte(s)]^hi[byte(s>>8)]) |
			uint64(lo[byte(s>>16)]^hi[byte(s>>24)])<<16 |
			uint64(lo[byte(s>>32)]^hi[byte(s>>40)])<<32 |
			uint64(lo[byte(s>>48)]^hi[byte(s>>56)])<<48
		d := binary.LittleEndian.Uint64(dst[i : i+8])
		binary.LittleEndian.PutUint64(dst[i:i+8], d^r)
	}
	for i := n; i+1 < len(src); i += 2 {
		w := binary.LittleEndian.Uint16(src[i:])
		d := binary.LittleEndian.Uint16(dst[i:])
		binary.LittleEndian.PutUint16(dst[i:], d^lo[byte(w)]^hi[byte(w>>8)])
	}
}
