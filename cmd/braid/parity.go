package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"braid/engine/metalink"
	"braid/engine/par2"
	"braid/engine/piece"
)

// paritySet is a PAR2 set opened from its index file, with the path of
// each of its files on disk.
type paritySet struct {
	index string
	set   *par2.Set
	paths []string // paths[i] is set.Files[i]
}

// openParity opens the PAR2 set whose index is index, with the volumes
// beside it that par2cmdline's naming makes its own. Its files are found
// by their names in dir (the index's folder when dir is ""), except those
// named on the command line: a FILE argument whose name the set has, or,
// for a one-file set, any single FILE.
func openParity(index string, files []string, dir string) (*paritySet, error) {
	vols, err := par2.Volumes(index)
	if err != nil {
		return nil, err
	}
	set, err := par2.Open(append([]string{index}, vols...)...)
	if errors.Is(err, par2.ErrNoMainPacket) {
		return nil, fmt.Errorf("%s is not a PAR2 parity set, or its main packet is damaged in every copy: %w", index, err)
	}
	if err != nil {
		return nil, err
	}
	if dir == "" {
		dir = filepath.Dir(index)
	}
	ps := &paritySet{index: index, set: set, paths: make([]string, len(set.Files))}
	byName := map[string]string{}
	for _, f := range files {
		byName[filepath.Base(f)] = f
	}
	for i, f := range set.Files {
		switch {
		case byName[filepath.Base(filepath.FromSlash(f.Name))] != "":
			ps.paths[i] = byName[filepath.Base(filepath.FromSlash(f.Name))]
		case len(set.Files) == 1 && len(files) == 1:
			ps.paths[i] = files[0]
		default:
			// A name from the set is data from elsewhere: it may not
			// leave the folder.
			if err := metalink.SafeName(f.Name); err != nil {
				set.Close()
				return nil, fmt.Errorf("%s: the set names a file %q Braid will not use: %w", index, f.Name, err)
			}
			ps.paths[i] = filepath.Join(dir, filepath.FromSlash(f.Name))
		}
	}
	if len(files) > 0 && len(set.Files) > 1 {
		for _, f := range files {
			found := false
			for _, p := range ps.paths {
				found = found || p == f
			}
			if !found {
				set.Close()
				return nil, fmt.Errorf("%s is not a file of the parity set %s", f, index)
			}
		}
	}
	return ps, nil
}

// parityResult is what verify found in one file of a parity set.
type parityResult struct {
	file par2.File
	path string
	rep  par2.FileReport
	err  error
}

func (r parityResult) status() string {
	switch {
	case r.err != nil:
		return statusError
	case r.rep.Size < 0:
		return statusMissing
	case r.rep.OK():
		return statusOK
	}
	return statusBad
}

// verify checks every file of the set, slice by slice.
func (ps *paritySet) verify(ctx context.Context) ([]parityResult, error) {
	var out []parityResult
	for i, f := range ps.set.Files {
		r := parityResult{file: f, path: ps.paths[i]}
		file, err := os.Open(ps.paths[i])
		switch {
		case errors.Is(err, fs.ErrNotExist):
			r.rep, r.err = ps.set.Verify(ctx, i, nil, -1)
		case err != nil:
			r.err = err
		default:
			var st os.FileInfo
			if st, err = file.Stat(); err == nil {
				r.rep, r.err = ps.set.Verify(ctx, i, file, st.Size())
			} else {
				r.err = err
			}
			file.Close()
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		out = append(out, r)
	}
	return out, nil
}

// damagedSlices counts the slices the set would have to rebuild.
func damagedSlices(results []parityResult) int {
	n := 0
	for _, r := range results {
		n += len(r.rep.Damaged)
	}
	return n
}

// verifyParity is `braid verify --par2 INDEX [FILE]...`.
func verifyParity(ctx context.Context, index string, files []string, dir string, asJSON bool, stdout, stderr io.Writer) int {
	ps, err := openParity(index, files, dir)
	if err != nil {
		fmt.Fprintf(stderr, "braid verify: %v\n", err)
		return 1
	}
	defer ps.set.Close()
	results, err := ps.verify(ctx)
	if err != nil {
		fmt.Fprintf(stderr, "braid verify: %v\n", err)
		return 1
	}
	if asJSON {
		err = writeParityJSON(stdout, ps, results)
	} else {
		err = writeParityText(stdout, ps, results, files)
	}
	if err != nil {
		fmt.Fprintf(stderr, "braid verify: %v\n", err)
		return 1
	}
	for _, r := range results {
		if r.status() != statusOK {
			return 1
		}
	}
	return 0
}

func writeParityText(w io.Writer, ps *paritySet, results []parityResult, files []string) error {
	var b strings.Builder
	s := ps.set
	for _, r := range results {
		name := r.file.Name
		n := len(r.file.Slices)
		switch r.status() {
		case statusError:
			fmt.Fprintf(&b, "%s: ERROR: %v\n", name, r.err)
		case statusMissing:
			fmt.Fprintf(&b, "%s: MISSING (not at %s); its %d %s would all need rebuilding\n", name, r.path, n, plural(n, "slice", "slices"))
		case statusOK:
			fmt.Fprintf(&b, "%s: OK (%d bytes; %d PAR2 %s and the whole-file MD5 match)\n", name, r.rep.Size, n, plural(n, "slice", "slices"))
		default:
			fmt.Fprintf(&b, "%s: BAD\n", name)
			if len(r.rep.Damaged) > 0 {
				fmt.Fprintf(&b, "  %d of %d PAR2 slices fail their checksums:\n", len(r.rep.Damaged), n)
				if writeRanges(&b, piece.Layout{Size: r.file.Size, Length: s.SliceSize}, r.rep.Damaged, "slice") > 0 {
					b.WriteString("    ... and more ranges (--json lists all)\n")
				}
			}
			if r.rep.Size > r.file.Size {
				fmt.Fprintf(&b, "  %d bytes past the end (file is %d bytes, expected %d)\n", r.rep.Size-r.file.Size, r.rep.Size, r.file.Size)
			}
			if r.rep.Size < r.file.Size {
				fmt.Fprintf(&b, "  file is %d bytes, %d short of %d\n", r.rep.Size, r.file.Size-r.rep.Size, r.file.Size)
			}
		}
	}
	need, have := damagedSlices(results), s.RecoveryBlocks()
	fmt.Fprintf(&b, "parity: %d recovery %s available", have, plural(have, "block", "blocks"))
	switch {
	case need == 0:
		b.WriteString("\n")
	case need > have:
		fmt.Fprintf(&b, ", %d needed: %v\n", need, &par2.ShortError{Damaged: need, Available: have})
	default:
		fmt.Fprintf(&b, ", %d needed\n", need)
	}
	bad := false
	for _, r := range results {
		bad = bad || r.status() == statusBad || r.status() == statusMissing
	}
	if bad && need <= have {
		fmt.Fprintf(&b, "To repair from parity: braid repair --par2 %s%s\n", ps.index, argList(files))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func argList(files []string) string {
	var b strings.Builder
	for _, f := range files {
		b.WriteString(" " + f)
	}
	return b.String()
}

// parityJSON is verify --par2 --json's output. Field names are stable.
type parityJSON struct {
	OK    bool             `json:"ok"`
	Par2  parityInfoJSON   `json:"par2"`
	Files []parityFileJSON `json:"files"`
}

type parityInfoJSON struct {
	Index          string `json:"index"`
	SliceSize      int64  `json:"slice_size"`
	Slices         int    `json:"slices"`
	RecoveryBlocks int    `json:"recovery_blocks"`
	Needed         int    `json:"needed"`
	Short          int    `json:"short"`
}

type parityFileJSON struct {
	Name          string      `json:"name"`
	Path          string      `json:"path"`
	Status        string      `json:"status"`
	Error         string      `json:"error,omitempty"`
	Size          int64       `json:"size"`
	Expected      int64       `json:"expected"`
	Slices        int         `json:"slices"`
	DamagedSlices []int       `json:"damaged_slices"`
	BadRanges     []rangeJSON `json:"bad_ranges"`
}

func writeParityJSON(w io.Writer, ps *paritySet, results []parityResult) error {
	s := ps.set
	need := damagedSlices(results)
	out := parityJSON{OK: true, Files: []parityFileJSON{}, Par2: parityInfoJSON{
		Index: ps.index, SliceSize: s.SliceSize, Slices: s.Slices(), RecoveryBlocks: s.RecoveryBlocks(),
		Needed: need, Short: max(0, need-s.RecoveryBlocks()),
	}}
	for _, r := range results {
		j := parityFileJSON{Name: r.file.Name, Path: r.path, Status: r.status(), Size: r.rep.Size, Expected: r.file.Size,
			Slices: len(r.file.Slices), DamagedSlices: append([]int{}, r.rep.Damaged...), BadRanges: []rangeJSON{}}
		if r.err != nil {
			j.Error = r.err.Error()
		}
		for _, rg := range (piece.Layout{Size: r.file.Size, Length: s.SliceSize}).Ranges(r.rep.Damaged) {
			j.BadRanges = append(j.BadRanges, rangeJSON{rg.Off, rg.N})
		}
		out.OK = out.OK && j.Status == statusOK
		out.Files = append(out.Files, j)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// repair rebuilds the damaged slices of every file of the set in
// place (creating a missing file) and checks the result. It returns the
// slices rebuilt; on a *par2.ShortError no file was changed.
func (ps *paritySet) repair(ctx context.Context, results []parityResult) (int, error) {
	for _, r := range results {
		if r.err != nil {
			return 0, fmt.Errorf("%s: %w", r.file.Name, r.err)
		}
	}
	need := damagedSlices(results)
	if need > ps.set.RecoveryBlocks() {
		return 0, &par2.ShortError{Damaged: need, Available: ps.set.RecoveryBlocks()}
	}
	files := make([]par2.ReadWriterAt, len(results))
	reports := make([]par2.FileReport, len(results))
	for i, r := range results {
		flag := os.O_RDWR
		if r.rep.Size < 0 {
			flag |= os.O_CREATE
		}
		f, err := os.OpenFile(r.path, flag, 0o644)
		if err != nil {
			return 0, err
		}
		defer f.Close()
		files[i], reports[i] = f, r.rep
	}
	n, err := ps.set.Repair(ctx, files, reports, par2.RepairOptions{})
	if err != nil {
		return n, err
	}
	for _, f := range files {
		if err := f.(*os.File).Sync(); err != nil {
			return n, err
		}
	}
	return n, nil
}

// repairParity is `braid repair --par2 INDEX [FILE]...` without a
// metalink: the files are mended from parity alone.
func repairParity(ctx context.Context, index string, files []string, dir string, stdout, stderr io.Writer) int {
	ps, err := openParity(index, files, dir)
	if err != nil {
		fmt.Fprintf(stderr, "braid repair: %v\n", err)
		return 1
	}
	defer ps.set.Close()
	before, err := ps.verify(ctx)
	if err != nil {
		fmt.Fprintf(stderr, "braid repair: %v\n", err)
		return 1
	}
	if _, err := ps.repair(ctx, before); err != nil {
		for _, r := range before {
			if r.status() == statusOK {
				fmt.Fprintf(stdout, "%s: OK, nothing to repair; verified (PAR2 MD5)\n", r.file.Name)
			} else {
				fmt.Fprintf(stdout, "%s: NOT REPAIRED: %s\n", r.file.Name, parityFailure(err))
			}
		}
		return 1
	}
	after, err := ps.verify(ctx)
	if err != nil {
		fmt.Fprintf(stderr, "braid repair: %v\n", err)
		return 1
	}
	code := 0
	for i, r := range after {
		b := before[i]
		switch {
		case r.status() != statusOK:
			fmt.Fprintf(stdout, "%s: NOT REPAIRED: it still fails its PAR2 checksums after the repair\n", r.file.Name)
			code = 1
		case b.status() == statusOK:
			fmt.Fprintf(stdout, "%s: OK, nothing to repair; verified (PAR2 MD5)\n", r.file.Name)
		default:
			fmt.Fprintf(stdout, "%s: repaired: %s; verified (PAR2 MD5)\n", r.file.Name, rebuiltText(len(b.rep.Damaged), len(b.file.Slices), b.rep.Size-b.file.Size))
		}
	}
	return code
}

// rebuiltText says what a parity repair did to one file.
func rebuiltText(rebuilt, slices int, trailing int64) string {
	text := fmt.Sprintf("%d of %d %s rebuilt from parity", rebuilt, slices, plural(slices, "slice", "slices"))
	if trailing > 0 {
		text += fmt.Sprintf(", %d bytes past the end cut off", trailing)
	}
	return text
}

// parityFailure is a failed parity repair in a user's words.
func parityFailure(err error) string {
	var short *par2.ShortError
	if errors.As(err, &short) {
		return err.Error() + "; the file is unchanged"
	}
	return "the repair from parity failed: " + err.Error()
}

// parityPercentFlag is --parity's value: a share of the file, "10%" or "10".
type parityPercentFlag int

func (p *parityPercentFlag) String() string {
	if *p == 0 {
		return ""
	}
	return strconv.Itoa(int(*p)) + "%"
}

func (p *parityPercentFlag) Set(s string) error {
	n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(s), "%"))
	if err != nil || n < 1 || n > 100 {
		return fmt.Errorf("%q is not a share of the file from 1%% to 100%% (example: 10%%)", s)
	}
	*p = parityPercentFlag(n)
	return nil
}

// makeParity writes the PAR2 set of path and returns its files' paths,
// the index first.
func makeParity(ctx context.Context, path string, percent int) ([]string, error) {
	paths, err := par2.Create(ctx, path, par2.CreateOptions{Percent: percent})
	if err != nil {
		return nil, fmt.Errorf("parity for %s: %w", path, err)
	}
	return paths, nil
}

// isPar2Path says whether source is a local PAR2 file (by its name; a URL
// is not one: inspect reads parity sets from disk).
func isPar2Path(source string) bool {
	if !strings.EqualFold(filepath.Ext(source), ".par2") || strings.Contains(source, "://") {
		return false
	}
	st, err := os.Stat(source)
	return err == nil && st.Mode().IsRegular()
}

// parityInspectJSON is inspect's JSON for a parity set. Field names are
// stable.
type parityInspectJSON struct {
	Kind           string              `json:"kind"` // "par2"
	Index          string              `json:"index"`
	Volumes        []string            `json:"volumes"`
	SliceSize      int64               `json:"slice_size"`
	Slices         int                 `json:"slices"`
	RecoveryBlocks int                 `json:"recovery_blocks"`
	Creator        string              `json:"creator,omitempty"`
	Files          []parityInspectFile `json:"files"`
}

type parityInspectFile struct {
	Name   string `json:"name"`
	Size   int64  `json:"size"`
	MD5    string `json:"md5"`
	Slices int    `json:"slices"`
}

// inspectParity is `braid inspect NAME.par2`.
func inspectParity(index string, asJSON bool, stdout, stderr io.Writer) int {
	vols, err := par2.Volumes(index)
	if err != nil {
		fmt.Fprintf(stderr, "braid inspect: %v\n", err)
		return 1
	}
	ps, err := openParity(index, nil, "")
	if err != nil {
		fmt.Fprintf(stderr, "braid inspect: %v\n", err)
		return 1
	}
	defer ps.set.Close()
	s := ps.set
	j := parityInspectJSON{Kind: "par2", Index: index, Volumes: []string{}, SliceSize: s.SliceSize, Slices: s.Slices(),
		RecoveryBlocks: s.RecoveryBlocks(), Creator: s.Creator, Files: []parityInspectFile{}}
	for _, v := range vols {
		j.Volumes = append(j.Volumes, filepath.Base(v))
	}
	for _, f := range s.Files {
		j.Files = append(j.Files, parityInspectFile{Name: f.Name, Size: f.Size, MD5: fmt.Sprintf("%x", f.MD5), Slices: len(f.Slices)})
	}
	if asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(j); err != nil {
			fmt.Fprintf(stderr, "braid inspect: %v\n", err)
			return 1
		}
		return 0
	}
	var b strings.Builder
	fmt.Fprintf(&b, "PAR2 parity set %s", index)
	if s.Creator != "" {
		fmt.Fprintf(&b, " (made by %s)", s.Creator)
	}
	fmt.Fprintf(&b, "\n  %d %s of %d bytes, %d recovery %s in %d %s\n", s.Slices(), plural(s.Slices(), "slice", "slices"), s.SliceSize,
		s.RecoveryBlocks(), plural(s.RecoveryBlocks(), "block", "blocks"), len(vols), plural(len(vols), "volume", "volumes"))
	if s.Slices() > 0 {
		fmt.Fprintf(&b, "  mends up to %d damaged %s (%.1f%% of the data)\n", min(s.RecoveryBlocks(), s.Slices()),
			plural(s.RecoveryBlocks(), "slice", "slices"), 100*float64(min(s.RecoveryBlocks(), s.Slices()))/float64(s.Slices()))
	}
	for _, f := range s.Files {
		fmt.Fprintf(&b, "  file %s: %d bytes, %d %s, md5 %x\n", f.Name, f.Size, len(f.Slices), plural(len(f.Slices), "slice", "slices"), f.MD5)
	}
	if _, err := io.WriteString(stdout, b.String()); err != nil {
		fmt.Fprintf(stderr, "braid inspect: %v\n", err)
		return 1
	}
	return 0
}
