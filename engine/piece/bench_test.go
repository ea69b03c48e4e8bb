package piece

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"

	"braid/engine/metalink"
)

// benchSize is the size of the benchmark file: 1 GiB, or BRAID_BENCH_MB
// megabytes for a quicker look.
func benchSize(b *testing.B) int64 {
	if s := os.Getenv("BRAID_BENCH_MB"); s != "" {
		mb, err := strconv.Atoi(s)
		if err != nil || mb <= 0 {
			b.Fatalf("BRAID_BENCH_MB=%q: want a positive number", s)
		}
		return int64(mb) << 20
	}
	return 1 << 30
}

// benchFile writes size random bytes to a file in a temporary directory,
// describes it with pieces of length bytes, and leaves it in the page
// cache (it was just written, and Describe read it again).
func benchFile(b *testing.B, size, length int64) (*os.File, metalink.File) {
	b.Helper()
	path := filepath.Join(b.TempDir(), "bench.bin")
	w, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	src := rand.NewChaCha8([32]byte{42})
	buf := make([]byte, 1<<20)
	for left := size; left > 0; left -= int64(len(buf)) {
		buf = buf[:min(int64(len(buf)), left)]
		src.Read(buf)
		if _, err := w.Write(buf); err != nil {
			b.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	r, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { r.Close() })
	f, err := Describe(context.Background(), r, size, "bench.bin", length, 0)
	if err != nil {
		b.Fatal(err)
	}
	return r, f
}

// BenchmarkVerify verifies a 1 GiB file in 1 MiB sha-256 pieces plus its
// whole-file sha-256, from a warm page cache: the speed of `braid verify`
// when the disk is not the limit.
func BenchmarkVerify(b *testing.B) {
	size := benchSize(b)
	r, f := benchFile(b, size, 1<<20)
	for _, workers := range []int{1, runtime.NumCPU()} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			b.SetBytes(size)
			for b.Loop() {
				rep, err := Verify(context.Background(), r, size, f, workers)
				if err != nil || !rep.OK() {
					b.Fatalf("verify: %v, %+v", err, rep)
				}
			}
		})
	}
	b.Run("pieces only", func(b *testing.B) {
		g := f
		g.Hashes = nil
		b.SetBytes(size)
		for b.Loop() {
			rep, err := Verify(context.Background(), r, size, g, 0)
			if err != nil || !rep.OK() {
				b.Fatalf("verify: %v, %+v", err, rep)
			}
		}
	})
}

// BenchmarkDescribe hashes a 1 GiB file for `braid make`.
func BenchmarkDescribe(b *testing.B) {
	size := benchSize(b)
	r, _ := benchFile(b, size, 1<<20)
	b.SetBytes(size)
	for b.Loop() {
		if _, err := Describe(context.Background(), r, size, "bench.bin", 0, 0); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPlanCheck is the engine's cost of checking one 1 MiB piece.
func BenchmarkPlanCheck(b *testing.B) {
	data := randomBytes(1<<20, 7)
	p := PlanFor(describeBytes("f", data, 1<<20, "sha-256"))
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if !p.Check(0, data) {
			b.Fatal("good piece fails")
		}
	}
}
