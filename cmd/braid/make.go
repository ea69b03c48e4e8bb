package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"braid/engine/metalink"
	"braid/engine/piece"
)

// maxPieceLength bounds --piece-length: the engine holds up to a piece per
// connection in flight, and a bad piece costs a piece to fetch again.
const maxPieceLength = 1 << 30

// cmdMake is `braid make [--piece-length N] [--url BASE]... FILE...`: it
// hashes each FILE (whole-file sha-256 and sha-256 pieces) and writes a
// Metalink 4 document describing them to stdout.
func cmdMake(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("braid make", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var length pieceLengthFlag
	var bases urlListFlag
	fs.Var(&length, "piece-length", fmt.Sprintf("piece length in bytes: 1048576, 256K, 1M, 4MiB (default: by file size, the smallest power of two from %s that makes at most %d pieces, up to %s)",
		fmt.Sprintf("%dK", piece.MinPieceLength>>10), piece.TargetPieces, fmt.Sprintf("%dM", piece.MaxPieceLength>>20)))
	fs.Var(&bases, "url", "mirror base URL; each file is offered at BASE/NAME (repeat for more mirrors, first is preferred)")
	var parity parityPercentFlag
	fs.Var(&parity, "parity", "also write a PAR2 parity set of this share of each FILE beside it (10% mends up to 10% damage), NAME.par2 and NAME.volA+B.par2, and list it in the .meta4")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "Usage: braid make [--piece-length N] [--url BASE]... [--parity P%] FILE...")
		fmt.Fprintln(stderr, "Hashes each FILE and writes a .meta4 describing them to stdout.")
		fmt.Fprintln(stderr, "With --parity, each FILE gets a PAR2 set beside it, readable by par2cmdline,")
		fmt.Fprintln(stderr, "from which braid repair --par2 (or par2 repair) mends damage no mirror can.")
		fs.PrintDefaults()
	}
	paths, code, ok := parseInterspersed(fs, args)
	if !ok {
		return code
	}
	if len(paths) == 0 {
		fmt.Fprintln(stderr, "braid make: no FILE given")
		fs.Usage()
		return 2
	}

	doc := &metalink.Document{Version: 4, Generator: "Braid"}
	seen := map[string]string{}
	// list adds the file at path to doc as name, offered under each base.
	list := func(path, name string) bool {
		f, err := makeDescribe(ctx, path, name, int64(length))
		if err != nil {
			fmt.Fprintf(stderr, "braid make: %v\n", err)
			return false
		}
		for i, base := range bases {
			f.URLs = append(f.URLs, metalink.URL{URL: base + "/" + url.PathEscape(name), Priority: i + 1})
		}
		doc.Files = append(doc.Files, f)
		return true
	}
	for _, path := range paths {
		name := filepath.Base(path)
		if err := metalink.SafeName(name); err != nil {
			fmt.Fprintf(stderr, "braid make: %s: %v\n", path, err)
			return 1
		}
		if other, ok := seen[name]; ok {
			fmt.Fprintf(stderr, "braid make: %s and %s have the same name %q; a metalink needs distinct names\n", other, path, name)
			return 1
		}
		seen[name] = path
		if !list(path, name) {
			return 1
		}
		if parity == 0 {
			continue
		}
		// Metalink has no element for parity: the set is listed as files
		// beside NAME, whose names say what they are (par2cmdline's naming).
		made, err := makeParity(ctx, path, int(parity))
		if err != nil {
			fmt.Fprintf(stderr, "braid make: %v\n", err)
			return 1
		}
		fmt.Fprintf(stderr, "braid make: wrote %s and %d parity %s beside it\n", made[0], len(made)-1, plural(len(made)-1, "volume", "volumes"))
		for _, p := range made {
			pname := filepath.Base(p)
			if other, ok := seen[pname]; ok {
				fmt.Fprintf(stderr, "braid make: the parity file %s has the name of %s; a metalink needs distinct names\n", p, other)
				return 1
			}
			seen[pname] = p
			if !list(p, pname) {
				return 1
			}
		}
	}
	if err := metalink.Write(stdout, doc); err != nil {
		fmt.Fprintf(stderr, "braid make: write: %v\n", err)
		return 1
	}
	return 0
}

// makeDescribe hashes the file at path for the document, as name.
func makeDescribe(ctx context.Context, path, name string, length int64) (metalink.File, error) {
	file, err := os.Open(path)
	if err != nil {
		return metalink.File{}, err
	}
	defer file.Close()
	st, err := file.Stat()
	if err != nil {
		return metalink.File{}, err
	}
	if !st.Mode().IsRegular() {
		return metalink.File{}, fmt.Errorf("%s: not a regular file", path)
	}
	return piece.Describe(ctx, file, st.Size(), name, length, 0)
}

// pieceLengthFlag is a byte count written as a number with an optional
// binary unit: 1048576, 256K, 256KiB, 1M, 1MB, 2G. Metalink piece lengths
// are powers of two in practice, so K, M and G mean 1024, 1024², 1024³.
type pieceLengthFlag int64

func (p *pieceLengthFlag) String() string { return strconv.FormatInt(int64(*p), 10) }

func (p *pieceLengthFlag) Set(s string) error {
	num := strings.TrimSpace(s)
	mult := int64(1)
	upper := strings.ToUpper(num)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}} {
		for _, form := range []string{u.suffix + "IB", u.suffix + "B", u.suffix} {
			if strings.HasSuffix(upper, form) {
				num, mult = num[:len(num)-len(form)], u.mult
				break
			}
		}
		if mult != 1 {
			break
		}
	}
	n, err := strconv.ParseInt(strings.TrimSpace(num), 10, 64)
	if err != nil || n <= 0 {
		return fmt.Errorf("%q is not a positive size (examples: 1048576, 256K, 1M)", s)
	}
	if n > maxPieceLength/mult {
		return fmt.Errorf("%q is larger than the largest piece length, 1G", s)
	}
	*p = pieceLengthFlag(n * mult)
	return nil
}

// urlListFlag collects --url values in order, each an absolute http,
// https or ftp URL; a trailing slash is dropped so BASE/NAME has one.
type urlListFlag []string

func (l *urlListFlag) String() string { return strings.Join(*l, ",") }

func (l *urlListFlag) Set(s string) error {
	u, err := url.Parse(s)
	if err != nil {
		return fmt.Errorf("%q: %w", s, err)
	}
	switch u.Scheme {
	case "http", "https", "ftp":
	default:
		return fmt.Errorf("%q: want an http, https or ftp URL", s)
	}
	if u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return fmt.Errorf("%q: want a base URL with a host and no query or fragment", s)
	}
	// u.String escapes what the user wrote raw (a space in a folder name),
	// so the document holds a valid URL.
	*l = append(*l, strings.TrimRight(u.String(), "/"))
	return nil
}
