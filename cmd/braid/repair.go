package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"braid/engine"
	"braid/engine/metalink"
	"braid/runner"
)

const repairUsage = `Usage: braid repair --metalink M [-d DIR] [--par2 NAME.par2]
       braid repair --par2 NAME.par2 [-d DIR] [FILE]...

Verifies every file of the metalink M found in DIR and mends each damaged one
in place: only the pieces that fail their hash are fetched again, from the
mirrors the metalink lists, and each is checked against its hash before it is
written over the bad one; bytes past the end are cut off. There is no copy of
the file: a repair that fails or is stopped leaves the good pieces it wrote
and nothing else changed, and running it again finishes the job.

A file whose metalink has no piece hashes can only be completed when it is
short; otherwise only a full download (braid get) can fix it.

A file the mirrors cannot mend (no mirror has good bytes, or none is left)
is mended from its PAR2 parity set: the one the metalink lists beside it
(NAME.par2 and NAME.volA+B.par2, of which only the index and the fewest
volumes the damage needs are fetched), or NAME.par2 on disk given with
--par2, its volumes beside it: mirrors first, then parity, and the file is
checked against the metalink's hashes after. With --par2 alone the files of
the set (found in DIR, default the folder of NAME.par2, or given as FILE)
are mended from parity only. When the damage needs more recovery blocks
than the set holds, the shortfall is printed and the file is left as it was.
Exit status: 0 every file verified, 1 a file is missing or could not be
repaired, 2 usage error.

Flags:
`

// cmdRepair is `braid repair --metalink M [-d DIR]`.
func cmdRepair(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fset := flag.NewFlagSet("braid repair", flag.ContinueOnError)
	fset.SetOutput(stderr)
	fset.Usage = func() {
		fmt.Fprint(stderr, repairUsage)
		fset.PrintDefaults()
	}
	mpath := fset.String("metalink", "", "the .meta4 or .metalink `file` describing the files")
	dir := fset.String("d", ".", "the folder holding the files")
	maxConn := fset.Int("max-conn", 0, "most connections at once (default 16)")
	perMirror := fset.Int("max-conn-per-mirror", 0, "most connections to one mirror (default 1)")
	par2Index := fset.String("par2", "", "mend from the PAR2 parity set whose index is `NAME.par2` what the mirrors cannot")
	netf := addNetFlags(fset)
	positional, code, ok := parseInterspersed(fset, args)
	if !ok {
		return code
	}
	if *par2Index != "" && *mpath == "" && *maxConn >= 0 && *perMirror >= 0 {
		pdir := ""
		fset.Visit(func(f *flag.Flag) {
			if f.Name == "d" {
				pdir = *dir
			}
		})
		return repairParity(ctx, *par2Index, positional, pdir, stdout, stderr)
	}
	if *mpath == "" || len(positional) > 0 || *maxConn < 0 || *perMirror < 0 {
		fmt.Fprintln(stderr, "braid repair: want --metalink M and no other arguments")
		fset.Usage()
		return 2
	}
	doc, err := loadMetalinkFile(*mpath)
	if err == nil {
		_, err = os.Stat(*dir)
	}
	if err != nil {
		fmt.Fprintf(stderr, "braid repair: %v\n", err)
		return 1
	}
	var links []string // a login or a header given goes to the mirrors' hosts
	for _, f := range doc.Files {
		for _, u := range f.URLs {
			links = append(links, u.URL)
		}
	}
	network, session, err := netf.open(links)
	if err != nil {
		fmt.Fprintf(stderr, "braid repair: %v\n", err)
		return 2
	}
	client := &engine.Client{MaxConns: *maxConn, MaxConnsPerMirror: *perMirror, Network: network}
	var given *runner.Parity // --par2's, for the file it is for
	if *par2Index != "" {
		if given, err = runner.ParityArg(*par2Index); err != nil {
			fmt.Fprintf(stderr, "braid repair: %v\n", err)
			return 1
		}
	}
	sets := metalink.ParitySets(doc.Files)
	code = 0
	if len(doc.Files) == 0 {
		fmt.Fprintln(stderr, "braid repair: the metalink has no file Braid can check")
		code = 1
	}
	for _, f := range doc.Files {
		if of, ok := metalink.ParityOf(f.Name); ok && sets[of].Of != "" {
			if _, err := os.Stat(filepath.Join(*dir, filepath.FromSlash(f.Name))); err != nil {
				fmt.Fprintf(stdout, "%s: SKIPPED (PAR2 parity for %s, not downloaded)\n", f.Name, of)
				continue
			}
		}
		// Mirrors first, then parity: --par2's set, or the one the
		// metalink lists beside the file.
		p := runner.ParityOf(doc, f.Name)
		if given != nil && (len(doc.Files) == 1 || given.For(f.Name)) {
			p = given
		}
		res, err := client.Repair(ctx, *dir, f, engine.RepairOptions{Net: session, Parity: p.Mender(client, session, 0, *dir)})
		if err != nil {
			fmt.Fprintf(stdout, "%s: NOT REPAIRED: %v\n", f.Name, err)
			code = 1
		} else {
			fmt.Fprintf(stdout, "%s: %s\n", f.Name, engine.RepairText(res))
		}
		if ctx.Err() != nil {
			return 1
		}
	}
	for _, rej := range doc.Rejected {
		fmt.Fprintf(stdout, "%s: SKIPPED (%s)\n", rej.Name, rej.Reason)
	}
	return code
}
