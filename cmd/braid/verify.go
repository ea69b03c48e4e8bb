package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"braid/engine/metalink"
	"braid/engine/piece"
)

const verifyUsage = `Usage: braid verify --metalink M [-d DIR] [--full] [--json]
       braid verify --par2 NAME.par2 [-d DIR] [--json] [FILE]...

Checks every file of the metalink M found in DIR against its piece hashes
and its whole-file hash, and prints OK or the bad byte ranges of each. A
file that is not in DIR is reported as missing. Where sha-256 (or stronger)
piece hashes cover every byte, the whole-file hash would only repeat what
they prove and is skipped; --full computes it too.
Exit status: 0 every file verified, 1 a file is bad, missing or cannot be
checked, 2 usage error.

With --par2 the files are checked against a PAR2 parity set instead: its
index NAME.par2 and the volumes beside it (NAME.volA+B.par2). Each file is
checked slice by slice; the damaged slices are listed with how many
recovery blocks the set holds and how many a repair needs. The files are
found by name in DIR (default: the folder of NAME.par2), or given as FILE.

Flags:
`

// verifyMaxRanges is how many bad ranges the text output lists per file;
// --json lists them all.
const verifyMaxRanges = 50

// Statuses of a file in verify's output (and its JSON).
const (
	statusOK         = "ok"
	statusBad        = "bad"
	statusMissing    = "missing"
	statusUnverified = "unverified" // no hash Braid can check
	statusError      = "error"      // could not be read
)

// verifyResult is the outcome for one file of the document.
type verifyResult struct {
	File   metalink.File
	Report *piece.Report // nil when the file is missing or unreadable
	Err    error
	Sig    sigVerdict // its OpenPGP signature, checked when its hashes match
}

func (r verifyResult) status() string {
	switch {
	case errors.Is(r.Err, fs.ErrNotExist):
		return statusMissing
	case r.Err != nil:
		return statusError
	case r.Report.OK() && r.Sig.err != nil:
		return statusBad
	case r.Report.OK():
		return statusOK
	case len(r.Report.Bad) > 0 || r.Report.Trailing > 0 || r.Report.Whole == piece.Mismatch:
		return statusBad
	}
	return statusUnverified
}

// cmdVerify is `braid verify --metalink M [-d DIR] [--json]`.
func cmdVerify(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fset := flag.NewFlagSet("braid verify", flag.ContinueOnError)
	fset.SetOutput(stderr)
	fset.Usage = func() {
		fmt.Fprint(stderr, verifyUsage)
		fset.PrintDefaults()
	}
	mpath := fset.String("metalink", "", "the .meta4 or .metalink `file` describing the files")
	dir := fset.String("d", ".", "the folder holding the files")
	asJSON := fset.Bool("json", false, "print the result as JSON")
	full := fset.Bool("full", false, "compute the whole-file hash even where the piece hashes cover every byte")
	sigs := verifySignatureFlags(fset)
	par2Index := fset.String("par2", "", "check against the PAR2 parity set whose index is `NAME.par2` instead of a metalink")
	positional, code, ok := parseInterspersed(fset, args)
	if !ok {
		return code
	}
	if *par2Index != "" {
		if *mpath != "" || *full {
			fmt.Fprintln(stderr, "braid verify: --par2 checks against parity alone; give it without --metalink and --full")
			fset.Usage()
			return 2
		}
		pdir := ""
		fset.Visit(func(f *flag.Flag) {
			if f.Name == "d" {
				pdir = *dir
			}
		})
		return verifyParity(ctx, *par2Index, positional, pdir, *asJSON, stdout, stderr)
	}
	if *mpath == "" || len(positional) > 0 {
		fmt.Fprintln(stderr, "braid verify: want --metalink M and no other arguments")
		fset.Usage()
		return 2
	}
	doc, root, err := openTarget(*mpath, *dir)
	if err != nil {
		fmt.Fprintf(stderr, "braid verify: %v\n", err)
		return 1
	}
	defer root.Close()

	results := make([]verifyResult, 0, len(doc.Files))
	check := piece.VerifyFile
	if *full {
		check = piece.VerifyFileFull
	}
	for _, f := range doc.Files {
		rep, err := check(ctx, root, f, 0)
		if ctx.Err() != nil {
			fmt.Fprintf(stderr, "braid verify: %v\n", ctx.Err())
			return 1
		}
		results = append(results, verifyResult{File: f, Report: rep, Err: err, Sig: sigs.check(root, f, rep)})
	}

	if *asJSON {
		err = writeVerifyJSON(stdout, results, doc.Rejected)
	} else {
		err = writeVerifyText(stdout, results, doc.Rejected, *mpath, *dir)
	}
	if err != nil {
		fmt.Fprintf(stderr, "braid verify: %v\n", err)
		return 1
	}
	if len(results) == 0 {
		fmt.Fprintln(stderr, "braid verify: the metalink has no file Braid can check")
		return 1
	}
	for _, r := range results {
		if r.status() != statusOK {
			return 1
		}
	}
	return 0
}

// openTarget reads the metalink document at mpath and opens dir, the
// folder holding its files, as a root no file name can leave: what verify
// and repair both start from. The caller closes the root.
func openTarget(mpath, dir string) (*metalink.Document, *os.Root, error) {
	doc, err := loadMetalinkFile(mpath)
	if err != nil {
		return nil, nil, err
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, nil, err
	}
	return doc, root, nil
}

// loadMetalinkFile reads and parses the metalink document at path.
func loadMetalinkFile(path string) (*metalink.Document, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	doc, err := metalink.Parse(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return doc, nil
}

func writeVerifyText(w io.Writer, results []verifyResult, rejected []metalink.Rejected, mpath, dir string) error {
	var b strings.Builder
	bad := false
	for _, r := range results {
		name := r.File.Name
		switch r.status() {
		case statusMissing:
			fmt.Fprintf(&b, "%s: MISSING (not in %s)\n", name, dir)
		case statusError:
			fmt.Fprintf(&b, "%s: ERROR: %v\n", name, r.Err)
		case statusUnverified:
			fmt.Fprintf(&b, "%s: UNVERIFIED: the metalink has no hash Braid can check; only the size (%d bytes) matches\n",
				name, r.Report.Size)
		case statusOK:
			fmt.Fprintf(&b, "%s: OK (%s)\n", name, verifyChecked(r.Report))
		case statusBad:
			fmt.Fprintf(&b, "%s: BAD\n", name)
			if r.Report.OK() { // only its signature is wrong
				break
			}
			bad = true
			verifyExplain(&b, r.Report)
		}
		r.Sig.writeText(&b)
	}
	for _, r := range rejected {
		fmt.Fprintf(&b, "%s: SKIPPED (%s)\n", r.Name, r.Reason)
	}
	if bad {
		fmt.Fprintf(&b, "To repair, fetching only the bad pieces: braid repair --metalink %s -d %s\n", mpath, dir)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// verifyChecked says what a good file was checked against.
func verifyChecked(rep *piece.Report) string {
	var parts []string
	if rep.Whole == piece.Match {
		parts = append(parts, "whole-file "+rep.HashType)
	}
	if rep.PiecesKnown() {
		parts = append(parts, fmt.Sprintf("%d %s %s", rep.Layout.Count(), rep.PieceType, plural(rep.Layout.Count(), "piece", "pieces")))
	}
	checked := fmt.Sprintf("%d bytes; %s match", rep.Size, strings.Join(parts, " and "))
	if rep.Whole == piece.Covered {
		checked += fmt.Sprintf(", covering the whole-file %s", rep.HashType)
	}
	return checked
}

// verifyExplain lists what is wrong with a bad file, one thing a line.
func verifyExplain(b *strings.Builder, rep *piece.Report) {
	failed := rep.Bad[:len(rep.Bad)-len(rep.Missing)]
	if len(failed) > 0 {
		fmt.Fprintf(b, "  %d of %d pieces fail their %s hash:\n", len(failed), rep.Layout.Count(), rep.PieceType)
		if left := writeRanges(b, rep.Layout, failed, "piece"); left > 0 {
			fmt.Fprintf(b, "    ... and %d more ranges (--json lists all)\n", left)
		}
	}
	if len(rep.Missing) > 0 {
		fmt.Fprintf(b, "  file is %d bytes, %d short of %d: bytes %d-%d missing",
			rep.Size, rep.Expected-rep.Size, rep.Expected, rep.Size, rep.Expected-1)
		if rep.PiecesKnown() {
			fmt.Fprintf(b, " (%s incomplete)", unitSpan("piece", rep.Missing[0], rep.Missing[len(rep.Missing)-1]))
		}
		b.WriteString("\n")
	}
	if rep.Trailing > 0 {
		fmt.Fprintf(b, "  %d bytes past the end (file is %d bytes, expected %d)", rep.Trailing, rep.Size, rep.Expected)
		if rep.TruncateRepairs {
			b.WriteString("; the rest is right, so cutting them off repairs it")
		}
		b.WriteString("\n")
	}
	if rep.Whole == piece.Mismatch && len(rep.Missing) == 0 && !rep.TruncateRepairs {
		fmt.Fprintf(b, "  whole-file %s does not match\n", rep.HashType)
	}
	if !rep.PiecesKnown() && len(rep.Missing) == 0 && !rep.TruncateRepairs {
		b.WriteString("  the metalink has no piece hashes Braid can use, so the bad bytes cannot be located\n")
	} else if rep.PiecesKnown() && len(rep.Bad) == 0 && rep.Trailing == 0 && rep.Whole == piece.Mismatch {
		b.WriteString("  every piece matches, so the metalink's whole-file and piece hashes disagree\n")
	}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// writeRanges writes the byte ranges of the given pieces of l, adjacent
// ones merged, a line each with the pieces it spans, up to verifyMaxRanges
// lines. unit names the pieces ("piece", or "slice" for a parity set's
// slices). It returns how many ranges it left out.
func writeRanges(b *strings.Builder, l piece.Layout, pieces []int, unit string) int {
	ranges := l.Ranges(pieces)
	for _, rg := range ranges[:min(len(ranges), verifyMaxRanges)] {
		last := rg.Off + rg.N - 1
		fmt.Fprintf(b, "    bytes %d-%d (%s)\n", rg.Off, last, unitSpan(unit, l.Index(rg.Off), l.Index(last)))
	}
	return max(0, len(ranges)-verifyMaxRanges)
}

// unitSpan names the units first to last, "piece 3" or "pieces 3-5" when
// unit is "piece".
func unitSpan(unit string, first, last int) string {
	if first == last {
		return fmt.Sprintf("%s %d", unit, first)
	}
	return fmt.Sprintf("%ss %d-%d", unit, first, last)
}

// verifyJSON is the --json output. Field names are stable: scripts read them.
type verifyJSON struct {
	OK       bool             `json:"ok"`
	Files    []verifyFileJSON `json:"files"`
	Rejected []verifyRejJSON  `json:"rejected,omitempty"`
}

type verifyFileJSON struct {
	Name            string      `json:"name"`
	Status          string      `json:"status"`
	Error           string      `json:"error,omitempty"`
	Size            int64       `json:"size"`
	Expected        int64       `json:"expected"`
	HashType        string      `json:"hash_type,omitempty"`
	Whole           string      `json:"whole"`
	PieceType       string      `json:"piece_type,omitempty"`
	PieceLength     int64       `json:"piece_length,omitempty"`
	Pieces          int         `json:"pieces"`
	BadPieces       []int       `json:"bad_pieces"`
	MissingPieces   []int       `json:"missing_pieces"`
	BadRanges       []rangeJSON `json:"bad_ranges"`
	Trailing        int64       `json:"trailing"`
	TruncateRepairs bool        `json:"truncate_repairs"`

	Signature *jsonSignature `json:"signature,omitempty"` // nil: no signature checked
}

type rangeJSON struct {
	Offset int64 `json:"offset"`
	Length int64 `json:"length"`
}

type verifyRejJSON struct {
	Name   string `json:"name"`
	Reason string `json:"reason"`
}

func writeVerifyJSON(w io.Writer, results []verifyResult, rejected []metalink.Rejected) error {
	out := verifyJSON{OK: len(results) > 0, Files: []verifyFileJSON{}}
	for _, r := range results {
		j := verifyFileJSON{Name: r.File.Name, Status: r.status(), Expected: r.File.Size,
			BadPieces: []int{}, MissingPieces: []int{}, BadRanges: []rangeJSON{}, Whole: piece.Unknown.String()}
		if r.Err != nil {
			j.Error = r.Err.Error()
		}
		if rep := r.Report; rep != nil {
			j.Size, j.Expected, j.HashType, j.Whole = rep.Size, rep.Expected, rep.HashType, rep.Whole.String()
			if rep.PiecesKnown() {
				j.PieceType, j.PieceLength, j.Pieces = rep.PieceType, rep.Layout.Length, rep.Layout.Count()
			}
			j.BadPieces = append(j.BadPieces, rep.Bad...)
			j.MissingPieces = append(j.MissingPieces, rep.Missing...)
			for _, rg := range rep.BadRanges {
				j.BadRanges = append(j.BadRanges, rangeJSON{rg.Off, rg.N})
			}
			j.Trailing, j.TruncateRepairs = rep.Trailing, rep.TruncateRepairs
		}
		j.Signature = r.Sig.json(r.File.Name)
		out.OK = out.OK && j.Status == statusOK
		out.Files = append(out.Files, j)
	}
	for _, r := range rejected {
		out.Rejected = append(out.Rejected, verifyRejJSON{r.Name, r.Reason})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
