package metalink

import (
	"slices"
	"strconv"
	"strings"
)

// ParitySet is the PAR2 parity a document lists beside one of its files
// (braid make --parity, or a publisher's own par2cmdline set): the index
// NAME.par2 and the volumes NAME.volXX+YY.par2, each holding YY recovery
// blocks. A parity set is for mending the file, not for downloading with
// it: Select leaves its files out.
type ParitySet struct {
	Of      string         // the name of the file it mends
	Index   int            // NAME.par2's index in the document's files; -1 when not listed
	Volumes []ParityVolume // by First, then by name
}

// ParityVolume is one volume of a ParitySet.
type ParityVolume struct {
	File   int // its index in the document's files
	First  int // the number of its first recovery block (XX)
	Blocks int // how many recovery blocks it holds (YY)
}

// Blocks is how many recovery blocks the set's volumes hold together.
func (s ParitySet) Blocks() int {
	n := 0
	for _, v := range s.Volumes {
		n += v.Blocks
	}
	return n
}

// Size is the bytes of the set's files (index and volumes) whose sizes
// files tells; files is the document the set was found in.
func (s ParitySet) Size(files []File) int64 {
	var n int64
	add := func(i int) {
		if i >= 0 && i < len(files) && files[i].Size > 0 {
			n += files[i].Size
		}
	}
	add(s.Index)
	for _, v := range s.Volumes {
		add(v.File)
	}
	return n
}

// ParitySets finds the parity sets among files: the PAR2 files in
// par2cmdline's naming whose file is listed too, by the name of the file
// they mend.
func ParitySets(files []File) map[string]ParitySet {
	if !slices.ContainsFunc(files, func(f File) bool { _, _, _, ok := ParityName(f.Name); return ok }) {
		return nil // most documents: no map of every name to build
	}
	names := make(map[string]bool, len(files))
	for _, f := range files {
		names[f.Name] = true
	}
	var sets map[string]ParitySet
	for i, f := range files {
		of, first, blocks, ok := ParityName(f.Name)
		if !ok || !names[of] {
			continue
		}
		if sets == nil {
			sets = map[string]ParitySet{}
		}
		s, seen := sets[of]
		if !seen {
			s = ParitySet{Of: of, Index: -1}
		}
		if first < 0 {
			s.Index = i
		} else {
			s.Volumes = append(s.Volumes, ParityVolume{File: i, First: first, Blocks: blocks})
		}
		sets[of] = s
	}
	for _, s := range sets {
		slices.SortStableFunc(s.Volumes, func(a, b ParityVolume) int {
			if a.First != b.First {
				return a.First - b.First
			}
			return strings.Compare(files[a.File].Name, files[b.File].Name)
		})
	}
	return sets
}

// ParityOf returns the name of the file that name, a file of a PAR2 set
// in par2cmdline's naming (NAME.par2, NAME.vol00+01.par2), holds parity
// for; false for any other name.
func ParityOf(name string) (string, bool) {
	of, _, _, ok := ParityName(name)
	return of, ok
}

// ParityName splits a PAR2 file's name in par2cmdline's naming: the file
// it mends, and for a volume (NAME.volXX+YY.par2) its first recovery block
// and how many it holds; first is -1 for the index NAME.par2. ok is false
// for a name that is not a PAR2 file's.
func ParityName(name string) (of string, first, blocks int, ok bool) {
	const ext = ".par2"
	if len(name) <= len(ext) || !strings.EqualFold(name[len(name)-len(ext):], ext) {
		return "", 0, 0, false
	}
	base := name[:len(name)-len(ext)]
	first = -1
	if dot := strings.LastIndexByte(base, '.'); dot > 0 {
		a, b, cut := strings.Cut(base[dot+1:], "+")
		if cut && len(a) > 3 && strings.EqualFold(a[:3], "vol") && digits(a[3:]) && digits(b) {
			x, errX := strconv.Atoi(a[3:])
			y, errY := strconv.Atoi(b)
			if errX == nil && errY == nil {
				base, first, blocks = base[:dot], x, y
			}
		}
	}
	return base, first, blocks, base != ""
}

func digits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}
