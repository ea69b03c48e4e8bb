package piece

import (
	"slices"
	"sync"
	"testing"

	"braid/engine/metalink"
)

func TestPlanFor(t *testing.T) {
	data := randomBytes(10*1000+7, 1)
	good := describeBytes("f", data, 1000, "sha-256", "sha-256")

	withPieces := func(mod func(p *metalink.Pieces)) metalink.File {
		f := good
		p := *good.Pieces
		p.Hashes = slices.Clone(p.Hashes)
		mod(&p)
		f.Pieces = &p
		return f
	}
	tests := []struct {
		name       string
		f          metalink.File
		verifiable bool
		length     int64
		count      int
	}{
		{"metalink pieces", good, true, 1000, 11},
		{"no pieces", metalink.File{Size: good.Size}, false, DefaultLength, 1},
		{"unsupported type", withPieces(func(p *metalink.Pieces) { p.Type = "blake3" }), false, DefaultLength, 1},
		{"one hash too few", withPieces(func(p *metalink.Pieces) { p.Hashes = p.Hashes[1:] }), false, DefaultLength, 1},
		{"one hash too many", withPieces(func(p *metalink.Pieces) { p.Hashes = append(p.Hashes, p.Hashes[0]) }), false, DefaultLength, 1},
		{"hash not hex", withPieces(func(p *metalink.Pieces) { p.Hashes[3] = "zz" + p.Hashes[3][2:] }), false, DefaultLength, 1},
		{"hash of another type's width", withPieces(func(p *metalink.Pieces) { p.Hashes[3] = p.Hashes[3][:40] }), false, DefaultLength, 1},
		{"zero length", withPieces(func(p *metalink.Pieces) { p.Length = 0 }), false, DefaultLength, 1},
		{"unknown size", func() metalink.File { f := good; f.Size = -1; return f }(), false, DefaultLength, 0},
		{"a terabyte", metalink.File{Size: 1 << 40}, false, DefaultLength, 1 << 20},
		{"a claimed exabyte", metalink.File{Size: 1 << 60}, false, 1 << 40, 1 << 20},
		{"just over a terabyte", metalink.File{Size: 1<<40 + 1}, false, 2 * DefaultLength, 1<<19 + 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := PlanFor(tt.f)
			if p.Verifiable() != tt.verifiable || p.Length != tt.length || p.Count() != tt.count {
				t.Fatalf("PlanFor = verifiable %v, length %d, %d pieces; want %v, %d, %d",
					p.Verifiable(), p.Length, p.Count(), tt.verifiable, tt.length, tt.count)
			}
			if tt.verifiable && p.Type != tt.f.Pieces.Type {
				t.Errorf("Type = %q, want %q", p.Type, tt.f.Pieces.Type)
			}
			if !tt.verifiable && (p.Type != "" || p.Hashes != nil) {
				t.Errorf("unverifiable plan has Type %q and %d hashes", p.Type, len(p.Hashes))
			}
		})
	}
}

func TestPlanCheck(t *testing.T) {
	data := randomBytes(5*512+100, 2)
	for _, typ := range []string{"sha-512", "sha-384", "sha-256", "sha-1", "md5"} {
		t.Run(typ, func(t *testing.T) {
			p := PlanFor(describeBytes("f", data, 512, typ))
			if !p.Verifiable() {
				t.Fatal("plan not verifiable")
			}
			for i := range p.Count() {
				off, n := p.Bounds(i)
				piece := data[off : off+n]
				if !p.Check(i, piece) {
					t.Errorf("piece %d: good data fails", i)
				}
				if p.Check(i, flip(piece, n-1)) {
					t.Errorf("piece %d: flipped last byte passes", i)
				}
				if p.Check((i+1)%p.Count(), piece) {
					t.Errorf("piece %d passes as piece %d", i, (i+1)%p.Count())
				}
			}
			if p.Check(0, data[:511]) || p.Check(5, data[5*512-1:]) {
				t.Error("data of the wrong length passes")
			}
			if p.Check(-1, data[:512]) || p.Check(p.Count(), data[:100]) {
				t.Error("a piece out of range passes")
			}
		})
	}
	t.Run("without hashes", func(t *testing.T) {
		p := PlanFor(metalink.File{Size: DefaultLength + 10})
		if !p.Check(1, make([]byte, 10)) {
			t.Error("a piece of the right length fails without hashes")
		}
		if p.Check(1, make([]byte, 11)) || p.Check(2, make([]byte, 10)) {
			t.Error("a piece of the wrong length or index passes without hashes")
		}
	})
}

// TestPlanCheckConcurrent runs Check from many goroutines at once, as the
// engine does; -race watches the pooled hash states.
func TestPlanCheckConcurrent(t *testing.T) {
	data := randomBytes(64*256, 3)
	p := PlanFor(describeBytes("f", data, 256, "sha-256"))
	bad := flip(data, 17*256+5)
	var wg sync.WaitGroup
	errs := make(chan string, 8*p.Count())
	for range 8 {
		wg.Go(func() {
			for i := range p.Count() {
				off, n := p.Bounds(i)
				if !p.Check(i, data[off:off+n]) {
					errs <- "good piece fails"
				}
				if p.Check(i, bad[off:off+n]) != (i != 17) {
					errs <- "bad piece 17 passes or another fails"
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Fatal(e)
	}
}

func TestPlanCheckAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector makes sync.Pool drop items on purpose")
	}
	data := randomBytes(4096, 4)
	p := PlanFor(describeBytes("f", data, 1024, "sha-512"))
	p.Check(0, data[:1024]) // fill the pool
	if n := testing.AllocsPerRun(100, func() { p.Check(1, data[1024:2048]) }); n > 0 {
		t.Errorf("Check allocates %v times per call", n)
	}
}
