package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"braid/engine"
)

const repairUsage = `Usage: braid repair --metalink M [-d DIR]

Verifies every file of the metalink M found in DIR and mends each damaged one
in place: only the pieces that fail their hash are fetched again, from the
mirrors the metalink lists, and each is checked against its hash before it is
written over the bad one; bytes past the end are cut off. There is no copy of
the file: a repair that fails or is stopped leaves the good pieces it wrote
and nothing else changed, and running it again finishes the job.

A file whose metalink has no piece hashes can only be completed when it is
short; otherwise only a full download (braid get) can fix it.
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
	if err := fset.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if *mpath == "" || fset.NArg() > 0 || *maxConn < 0 || *perMirror < 0 {
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
	client := &engine.Client{MaxConns: *maxConn, MaxConnsPerMirror: *perMirror}
	code := 0
	if len(doc.Files) == 0 {
		fmt.Fprintln(stderr, "braid repair: the metalink has no file Braid can check")
		code = 1
	}
	for _, f := range doc.Files {
		res, err := client.Repair(ctx, *dir, f, engine.RepairOptions{})
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
