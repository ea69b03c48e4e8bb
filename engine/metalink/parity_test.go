package metalink

import (
	"fmt"
	"testing"
)

func TestParitySets(t *testing.T) {
	files := []File{
		{Name: "big.iso", Size: 1000},
		{Name: "big.iso.vol03+04.par2", Size: 40},
		{Name: "big.iso.par2", Size: 5},
		{Name: "big.iso.vol00+01.par2", Size: 10},
		{Name: "big.iso.vol01+02.par2", Size: 20},
		{Name: "other.bin.par2", Size: 7}, // other.bin is not listed
		{Name: "notes.txt", Size: 3},
	}
	sets := ParitySets(files)
	if len(sets) != 1 {
		t.Fatalf("sets %v, want one for big.iso", sets)
	}
	s := sets["big.iso"]
	if s.Of != "big.iso" || s.Index != 2 {
		t.Errorf("set of %q with index %d, want big.iso with 2", s.Of, s.Index)
	}
	var firsts []int
	for _, v := range s.Volumes {
		firsts = append(firsts, v.First)
	}
	if len(firsts) != 3 || firsts[0] != 0 || firsts[1] != 1 || firsts[2] != 3 {
		t.Errorf("volumes start at %v, want [0 1 3]", firsts)
	}
	if got := s.Blocks(); got != 7 {
		t.Errorf("Blocks() = %d, want 1+2+4 = 7", got)
	}
	if got := s.Size(files); got != 75 {
		t.Errorf("Size() = %d, want 5+10+20+40 = 75", got)
	}
}

func TestParityName(t *testing.T) {
	for _, c := range []struct {
		name          string
		of            string
		first, blocks int
		ok            bool
	}{
		{"a.bin.par2", "a.bin", -1, 0, true},
		{"a.bin.vol07+08.PAR2", "a.bin", 7, 8, true},
		{"a.bin.volx+08.par2", "a.bin.volx+08", -1, 0, true},
		{"a.bin", "", 0, 0, false},
		{".par2", "", 0, 0, false},
	} {
		of, first, blocks, ok := ParityName(c.name)
		if of != c.of || first != c.first || blocks != c.blocks || ok != c.ok {
			t.Errorf("ParityName(%q) = %q %d %d %v, want %q %d %d %v", c.name, of, first, blocks, ok, c.of, c.first, c.blocks, c.ok)
		}
	}
}

// A document without PAR2 files (nearly every one) is looked through
// without building a map of its names: the runner asks for each download,
// and a batch of 10,000 files spent a third of its CPU here.
func TestParitySetsOfNoParityAllocatesNothing(t *testing.T) {
	files := make([]File, 10000)
	for i := range files {
		files[i] = File{Name: fmt.Sprintf("f%05d.bin", i)}
	}
	if allocs := testing.AllocsPerRun(10, func() {
		if ParitySets(files) != nil {
			t.Fatal("parity sets in a document without PAR2 files")
		}
	}); allocs != 0 {
		t.Errorf("%.0f allocations for a document without PAR2 files, want 0", allocs)
	}
}
