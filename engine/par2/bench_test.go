package par2

import (
	"context"
	"testing"
)

// BenchmarkMulAdd measures the inner loop: one coefficient times a 1 MiB
// slice, added into another.
func BenchmarkMulAdd(b *testing.B) {
	src := make([]byte, 1<<20)
	dst := make([]byte, 1<<20)
	for i := range src {
		src[i] = byte(i * 7)
	}
	t := newMulTable(0x1234)
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		t.mulAdd(dst, src)
	}
}

// benchCombine adds inputs slices of size bytes into outs outputs, as a
// repair (few outputs) or a create (many) does.
func benchCombine(b *testing.B, inputs, outs int, size int64) {
	data := make([]byte, size)
	for i := range data {
		data[i] = byte(i * 13)
	}
	src := make([]sliceSource, inputs)
	for i := range src {
		src[i] = func(buf []byte, off int64) error { copy(buf, data[off:]); return nil }
	}
	consts := inputConstants(inputs)
	coef := make([][]uint16, outs)
	for k := range coef {
		coef[k] = make([]uint16, inputs)
		for i := range coef[k] {
			coef[k][i] = gfPow(consts[i], uint32(k+1))
		}
	}
	b.SetBytes(int64(inputs) * size * int64(outs))
	for b.Loop() {
		if err := combine(context.Background(), size, src, coef, 0, func(int, int64, []byte) error { return nil }); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCombineRepair(b *testing.B) { benchCombine(b, 200, 19, 512<<10) }
func BenchmarkCombineCreate(b *testing.B) { benchCombine(b, 100, 100, 512<<10) }

func newMulTable(c uint16) *mulTable {
	gfTables()
	t := &mulTable{}
	t.fill(c)
	return t
}
