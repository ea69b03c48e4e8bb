package par2

import "testing"

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
