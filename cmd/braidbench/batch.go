package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"braid/bench/mirror"
)

// stallAtOnce is a StallAfter for a mirror that stalls at once: it sends
// one byte of each answer, too little to finish any piece, so none of its
// bytes count toward the ideal.
const stallAtOnce = 1

// ariaModes are the ways aria2c runs beside braid, each its own column:
// its defaults, and tuned as a user who wants speed would (16 connections
// a file, 1 MiB segments, the mirror picked by measured speed). Both run
// with --no-conf, so a stray ~/.aria2/aria2.conf changes neither.
var ariaModes = []ariaMode{
	{"default", nil},
	{"tuned", []string{"-s16", "-k1M", "--uri-selector=adaptive"}},
}

// ariaMode is one way of running aria2c: its column's name and the
// arguments added for it.
type ariaMode struct {
	name string
	args []string
}

// ariaResult is aria2c's best runs in one mode (see bestOf).
type ariaResult struct {
	mode      string
	wall, cpu time.Duration
	rss, anon int64 // peak resident memory, and its anonymous part
	err       error
}

// benchRun is what one scenario hands to the downloaders: braid gets braidArgs
// after `get`, aria2c gets ariaArgs (with `-d` and each mode's own), and
// check tells whether a downloader's output folder holds every file at its
// size.
type benchRun struct {
	braidArgs []string
	ariaArgs  []string
	// modes are aria2c's columns; nil: ariaModes.
	modes []ariaMode
	check func(out string) error
}

// metalinkRun is a benchRun of one metalink for both downloaders; aria2c
// reads it with --no-conf, so a stray ~/.aria2/aria2.conf changes nothing.
func metalinkRun(meta string, check func(out string) error) benchRun {
	return benchRun{braidArgs: []string{meta}, ariaArgs: []string{"--no-conf", "-M", meta}, check: check}
}

// measure runs braid, and aria2c in each mode when aria is set, runs times
// each, alternating, and keeps the best run of each in res.
func measure(ctx context.Context, dir string, res *result, rn benchRun, braid, aria string, runs int) error {
	modes := rn.modes
	if modes == nil {
		modes = ariaModes
	}
	var braidRuns []childRun
	ariaRuns := make([][]childRun, len(modes))
	if aria != "" {
		res.arias = make([]ariaResult, len(modes))
		for i, m := range modes {
			res.arias[i].mode = m.name
		}
	}
	for i := range max(runs, 1) {
		out := filepath.Join(dir, "braid-"+res.name)
		state := filepath.Join(dir, fmt.Sprintf("state-%s-%d", res.name, i))
		r, err := runChild(ctx, out, braid, append([]string{"get", "--state", state, "-d", out}, rn.braidArgs...)...)
		if err == nil {
			err = rn.check(out)
		}
		os.RemoveAll(out)
		os.RemoveAll(state)
		if err != nil {
			return fmt.Errorf("braid get: %w", err)
		}
		braidRuns = append(braidRuns, r)
		res.braidRSS, res.braidAnon = max(res.braidRSS, r.rss), max(res.braidAnon, r.anon)
		for k, m := range modes {
			if aria == "" || res.arias[k].err != nil {
				continue
			}
			out := filepath.Join(dir, "aria2c-"+res.name)
			args := append(append(slices.Clone(rn.ariaArgs), "-d", out), m.args...)
			r, err := runChild(ctx, out, aria, args...)
			if err == nil {
				err = rn.check(out)
			}
			os.RemoveAll(out)
			res.arias[k].err = err
			ariaRuns[k] = append(ariaRuns[k], r)
		}
	}
	res.braid, res.braidCPU, _, _ = bestOf(braidRuns)
	for k := range res.arias {
		if res.arias[k].err == nil && len(ariaRuns[k]) > 0 {
			a := &res.arias[k]
			a.wall, a.cpu, a.rss, a.anon = bestOf(ariaRuns[k])
		}
	}
	return nil
}

// bestOf is the shortest wall time and the least CPU time of runs, each
// the best of its own (a run slowed by the neighbours says more about
// them than about the tool), and the highest peak memory (and anonymous
// memory) of any run.
func bestOf(runs []childRun) (wall, cpu time.Duration, rss, anon int64) {
	wall, cpu = best(runs).wall, runs[0].cpu
	for _, r := range runs {
		cpu, rss, anon = min(cpu, r.cpu), max(rss, r.rss), max(anon, r.anon)
	}
	return wall, cpu, rss, anon
}

// batch is a scenario of many files: count files of size bytes, on
// mirrors of rate MB/s each, in one metalink, or one metalink per file
// when jobs (each its own download in braid's queue).
type batch struct {
	name   string
	count  int
	size   int64
	rates  []int64 // MB/s of each mirror
	jobs   bool
	target float64
	maxRSS int64 // most resident memory allowed braid; 0: no check
	// cpuLimit and ariaShare: see result.
	cpuLimit, ariaShare float64
	alone               bool // braid only: a memory scenario
	// input gives aria2c an input file (-i) of every file's mirrors and
	// sha-256, 16 downloads at once, the way a user feeds it many files,
	// in place of the metalink.
	input bool
}

// batchNames are the batch scenarios, for the -scenarios default.
const batchNames = "batch-1M,batch-64K,jobs-50M,batch-10k"

func batches() []batch {
	three := []int64{30, 30, 30}
	return []batch{
		{name: "batch-1M", count: 200, size: 1 << 20, rates: three, target: 1.10},
		// Latency-bound: each file is a few milliseconds of transfer, so
		// the time goes in requests, file creation and bookkeeping.
		{name: "batch-64K", count: 2000, size: 64 << 10, rates: three},
		{name: "jobs-50M", count: 10, size: 50 << 20, rates: three, jobs: true, target: 1.10},
		// Memory and bookkeeping: ten thousand files in one metalink.
		// Braid must take at most half aria2c's time, with no more CPU.
		{name: "batch-10k", count: 10000, size: 16 << 10, rates: three, maxRSS: 200 << 20, input: true, cpuLimit: 1, ariaShare: 0.5},
	}
}

// batchFile is one file of a batch.
type batchFile struct {
	name string
	c    *mirror.Content
}

func runBatch(ctx context.Context, dir string, b batch, pieceLen int64, braid, aria string, runs int) (result, error) {
	total := int64(b.count) * b.size
	res := result{name: b.name, size: total, target: b.target, maxRSS: b.maxRSS, cpuLimit: b.cpuLimit, ariaShare: b.ariaShare}
	if b.alone {
		aria = ""
	}
	whole := mirror.NewContent(total)
	files := make([]batchFile, b.count)
	served := map[string]*mirror.Content{}
	for i := range files {
		files[i] = batchFile{name: fmt.Sprintf("f%04d.bin", i), c: whole.Window(int64(i)*b.size, b.size)}
		served[files[i].name] = files[i].c
	}
	var bases []string
	var rate int64
	for i, r := range b.rates {
		s, err := mirror.StartFiles(whole, served, fmt.Sprintf("127.0.0.%d", i+2), mirror.Behaviour{Rate: r * mb})
		if err != nil {
			return res, err
		}
		defer s.Close()
		bases = append(bases, s.Base())
		rate += r * mb
	}
	res.ideal = time.Duration(float64(total) / float64(rate) * float64(time.Second))
	urlsOf := func(name string) []string {
		var out []string
		for _, base := range bases {
			out = append(out, base+name)
		}
		return out
	}
	all := filepath.Join(dir, b.name+".meta4")
	if err := writeBatchMeta4(all, files, pieceLen, urlsOf); err != nil {
		return res, err
	}
	defer os.Remove(all)
	rn := metalinkRun(all, func(out string) error {
		for _, f := range files {
			if err := checkFile(filepath.Join(out, f.name), b.size); err != nil {
				return err
			}
		}
		return nil
	})
	if b.input {
		in := filepath.Join(dir, b.name+".aria2")
		if err := writeAriaInput(in, files, urlsOf); err != nil {
			return res, err
		}
		defer os.Remove(in)
		rn.ariaArgs = []string{"--no-conf", "-i", in}
		rn.modes = []ariaMode{{"default", []string{"-j16"}}}
	}
	if b.jobs {
		// braid gets one source per file, each a job of its own; aria2c
		// gets them in one metalink, its way of running several downloads.
		rn.braidArgs = nil
		for i := range files {
			m := filepath.Join(dir, fmt.Sprintf("%s-%d.meta4", b.name, i))
			if err := writeBatchMeta4(m, files[i:i+1], pieceLen, urlsOf); err != nil {
				return res, err
			}
			defer os.Remove(m)
			rn.braidArgs = append(rn.braidArgs, m)
		}
	}
	err := measure(ctx, dir, &res, rn, braid, aria, runs)
	return res, err
}

// wholeHash gives each file of a .meta4 its whole-file sha-256 (flag
// -whole-hash). aria2c checks a file against its piece hashes only when it
// has them (a wrong whole-file hash beside right piece hashes passes), and
// so does braid where sha-256 pieces cover every byte, checked as they
// arrived; a resumed download still reads the file back for it. false
// shows what the hash costs there.
var wholeHash = true

// writeAriaInput writes an aria2c input file at path for files: each
// file's mirrors on one line, then its name and sha-256 as options.
func writeAriaInput(path string, files []batchFile, urlsOf func(name string) []string) error {
	var b strings.Builder
	buf := make([]byte, 1<<20)
	for _, f := range files {
		h := sha256.New()
		for off := int64(0); off < f.c.Size; off += int64(len(buf)) {
			p := buf[:min(int64(len(buf)), f.c.Size-off)]
			f.c.Fill(p, off)
			h.Write(p)
		}
		fmt.Fprintf(&b, "%s\n  out=%s\n  checksum=sha-256=%s\n", strings.Join(urlsOf(f.name), "\t"), f.name, hex.EncodeToString(h.Sum(nil)))
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

// writeBatchMeta4 writes a Metalink 4 document at path for files, each
// with sha-256 piece hashes and a whole-file sha-256, on the URLs urlsOf
// gives for its name, in order of priority.
func writeBatchMeta4(path string, files []batchFile, pieceLen int64, urlsOf func(name string) []string) error {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	b.WriteString(`<metalink xmlns="urn:ietf:params:xml:ns:metalink">` + "\n")
	buf := make([]byte, pieceLen)
	for _, f := range files {
		whole := sha256.New()
		fmt.Fprintf(&b, "  <file name=%q>\n    <size>%d</size>\n", f.name, f.c.Size)
		var pieces []string
		for off := int64(0); off < f.c.Size; off += pieceLen {
			p := buf[:min(pieceLen, f.c.Size-off)]
			f.c.Fill(p, off)
			whole.Write(p)
			s := sha256.Sum256(p)
			pieces = append(pieces, hex.EncodeToString(s[:]))
		}
		if wholeHash {
			fmt.Fprintf(&b, "    <hash type=\"sha-256\">%s</hash>\n", hex.EncodeToString(whole.Sum(nil)))
		}
		fmt.Fprintf(&b, "    <pieces length=\"%d\" type=\"sha-256\">\n", pieceLen)
		for _, p := range pieces {
			fmt.Fprintf(&b, "      <hash>%s</hash>\n", p)
		}
		b.WriteString("    </pieces>\n")
		for i, u := range urlsOf(f.name) {
			fmt.Fprintf(&b, "    <url priority=\"%d\">%s</url>\n", i+1, u)
		}
		b.WriteString("  </file>\n")
	}
	b.WriteString("</metalink>\n")
	return os.WriteFile(path, []byte(b.String()), 0o644)
}
