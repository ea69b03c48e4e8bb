package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"time"

	"braid/bench/mirror"
)

// The pgo case: what the profile-guided build (cmd/braid/default.pgo,
// made by `make pgo`) saves. The braid under test is built as shipped,
// with the profile; beside it the same source is built with -pgo=off.
// Both run the throttled and unthrottled downloads and the batch of 200
// files, taking turns (A B A B), and the case reports each one's median
// CPU time and their ratio.

var pgoRuns = new(int)

func init() {
	extras = append(extras, extra{name: "pgo", run: runPGO, flags: func(fs *flag.FlagSet) {
		fs.IntVar(pgoRuns, "pgo-runs", 5, "runs of each build in the pgo case, taking turns")
	}})
}

// pgoCase runs one scenario with a braid binary and returns its CPU time.
type pgoCase struct {
	name string
	run  func(braid string) (time.Duration, error)
}

func runPGO(ctx context.Context, env *benchEnv, out io.Writer) (bool, error) {
	if _, err := os.Stat(filepath.Join("cmd", "braid", "default.pgo")); err != nil {
		fmt.Fprintln(out, "pgo: skipped: no cmd/braid/default.pgo (make pgo makes it)")
		return true, nil
	}
	plain := filepath.Join(env.dir, "braid-nopgo")
	cmd := exec.CommandContext(ctx, "go", "build", "-pgo=off", "-tags", "nosqlite,disable_libutp,headless", "-o", plain, "./cmd/braid")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return false, fmt.Errorf("build braid without the profile: %w", err)
	}
	content := mirror.NewContent(env.size)
	var cases []pgoCase
	for _, sc := range scenarios(env.pieceLen) {
		if sc.name != "uniform" && sc.name != "unlimited" {
			continue
		}
		cases = append(cases, pgoCase{sc.name, func(braid string) (time.Duration, error) {
			r, err := runScenario(ctx, env.dir, sc, content, env.pieceLen, braid, "", 1)
			return r.braidCPU, err
		}})
	}
	for _, b := range batches() {
		if b.name != "batch-1M" {
			continue
		}
		cases = append(cases, pgoCase{b.name, func(braid string) (time.Duration, error) {
			r, err := runBatch(ctx, env.dir, b, env.pieceLen, braid, "", 1)
			return r.braidCPU, err
		}})
	}
	fmt.Fprintf(out, "\npgo: CPU s of braid built with cmd/braid/default.pgo and without it, median of %d runs each, taking turns\n", *pgoRuns)
	fmt.Fprintf(out, "%-10s %10s %10s %8s\n", "scenario", "with", "without", "ratio")
	for _, c := range cases {
		var with, without []time.Duration
		for range max(*pgoRuns, 1) {
			for _, side := range []struct {
				bin string
				to  *[]time.Duration
			}{{env.braid, &with}, {plain, &without}} {
				cpu, err := c.run(side.bin)
				if err != nil {
					return false, fmt.Errorf("%s: %w", c.name, err)
				}
				*side.to = append(*side.to, cpu)
			}
		}
		w, wo := median(with), median(without)
		fmt.Fprintf(out, "%-10s %10.2f %10.2f %8.3f\n", c.name, w.Seconds(), wo.Seconds(), w.Seconds()/wo.Seconds())
	}
	return true, nil
}

// median is the middle of ds (the mean of the two middle ones).
func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}
