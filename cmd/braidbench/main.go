// Command braidbench measures how close `braid get` comes to the ideal
// time of a download from several rate-limited mirrors, side by side with
// aria2c when it is installed, and how much memory braid needs for a large
// file. Every mirror is an HTTP server of its own on its own loopback
// address (127.0.0.2, 127.0.0.3, ...), serving generated data that is never
// held in memory. Both downloaders run as child processes on the same
// .meta4 (sha-256 piece hashes and a whole-file hash). Every row gives
// both downloaders' CPU time (user + system) and peak resident memory side
// by side. "torrent" and "webseed" fetch a .torrent from a loopback swarm
// and from its web seed alone. After the time table come the cases with
// reports of their own (see extras): "crash", what each downloader fetches
// again after SIGKILL at random moments, "protocols", what the servers
// send for one file from HTTP, FTP and a server that ignores Range, and
// "idle", the CPU a finished torrent costs while it seeds to nobody.
//
//	go run -tags nosqlite,disable_libutp ./cmd/braidbench [-size 256MiB] [-scenarios uniform,mixed,hostile,unlimited,memory,crash,protocols,torrent,webseed,idle]
package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"braid/bench/mirror"
)

// mirrorSpec is one mirror of a scenario.
type mirrorSpec struct {
	mirror.Behaviour
	honest bool // counts toward the ideal time
}

// scenario is one bench case.
type scenario struct {
	name    string
	mirrors []mirrorSpec
	target  float64 // most braid÷ideal allowed; 0: none
	// cpuLimit is the most CPU braid may use, as a multiple of aria2c's
	// (its defaults); 0: no limit.
	cpuLimit float64
}

const mb = 1_000_000

func scenarios(pieceLen int64) []scenario {
	honest := func(rate int64) mirrorSpec { return mirrorSpec{mirror.Behaviour{Rate: rate * mb}, true} }
	return []scenario{
		{name: "uniform", target: 1.05, cpuLimit: 1, mirrors: []mirrorSpec{honest(40), honest(40), honest(40), honest(40)}},
		{name: "mixed", target: 1.10, mirrors: []mirrorSpec{honest(60), honest(10), honest(5), honest(20)}},
		// The ideal counts the honest mirrors only, so it is a true lower
		// bound: the staller sends headers and then nothing, and the
		// corrupter spoils every piece it sends.
		{name: "hostile", target: 1.25, mirrors: []mirrorSpec{
			honest(60), honest(10), honest(5),
			{mirror.Behaviour{Rate: 20 * mb, StallAfter: stallAtOnce}, false},
			{mirror.Behaviour{Rate: 20 * mb, CorruptLen: pieceLen, CorruptEvery: 1}, false},
		}},
		{name: "unlimited", cpuLimit: 1, mirrors: []mirrorSpec{honest(0), honest(0), honest(0), honest(0)}},
	}
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "braidbench:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("braidbench", flag.ContinueOnError)
	sizeFlag := fs.String("size", "256MiB", "file size of the rate-limited scenarios")
	memSize := fs.String("mem-size", "4GiB", "file size of the memory scenario")
	pieceFlag := fs.String("piece", "1MiB", "piece length in the .meta4")
	which := fs.String("scenarios", "uniform,mixed,hostile,unlimited,torrent,webseed,memory,"+batchNames+extraNames(), "scenarios to run, comma separated (torrent needs opentracker, which make bench installs; without it the row says it was skipped)")
	braidBin := fs.String("braid", "", "braid binary (default: build ./cmd/braid)")
	ariaBin := fs.String("aria2c", "aria2c", "aria2c binary; \"\" to skip")
	workDir := fs.String("work", "", "folder for downloads (default: a temporary one)")
	verbose := fs.Bool("v", false, "show the downloaders' own output")
	runs := fs.Int("runs", 3, "runs of each downloader per scenario; the best counts (on a shared machine a slow run says more about the neighbours than about the tool)")
	strict := fs.Bool("strict", false, "exit with status 1 when a target is missed")
	fs.BoolVar(&wholeHash, "whole-hash", true, "give each file of a .meta4 its whole-file sha-256 beside the piece hashes (aria2c checks only the pieces then; braid both)")
	for _, e := range extras {
		if e.flags != nil {
			e.flags(fs)
		}
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	childOutput = *verbose
	size, err := parseSize(*sizeFlag)
	if err != nil {
		return err
	}
	bigSize, err := parseSize(*memSize)
	if err != nil {
		return err
	}
	pieceLen, err := parseSize(*pieceFlag)
	if err != nil {
		return err
	}
	dir := *workDir
	if dir == "" {
		if dir, err = os.MkdirTemp("", "braidbench-"); err != nil {
			return err
		}
		defer os.RemoveAll(dir)
	}
	if *braidBin == "" {
		*braidBin = filepath.Join(dir, "braid")
		fmt.Fprintln(out, "building braid ...")
		// The command line as the Makefile builds it: headless.
		cmd := exec.CommandContext(ctx, "go", "build", "-tags", "nosqlite,disable_libutp,headless", "-o", *braidBin, "./cmd/braid")
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("build braid: %w", err)
		}
	}
	aria := ""
	if *ariaBin != "" {
		if p, err := exec.LookPath(*ariaBin); err == nil {
			aria = p
		}
	}
	want := map[string]bool{}
	for _, w := range strings.Split(*which, ",") {
		want[strings.TrimSpace(w)] = true
	}

	tw := out
	fmt.Fprintf(tw, "%d cores, load %s, best of %d runs\n", runtime.NumCPU(), loadAvg(), max(*runs, 1))
	fmt.Fprintln(tw, "CPU is user + system seconds of the whole process, RSS its peak and, in brackets, the anonymous part of it (heap and stacks, without the pages of the program's own binary and libraries); the best run of each (least CPU, shortest time), the highest peak")
	fmt.Fprintf(tw, rowFormat, "scenario", "size", "ideal", "braid", "braid÷ideal", "aria2c", "aria2c÷ideal", "tuned", "tuned÷ideal",
		"CPU s braid/aria/tuned", "CPU ÷aria", "RSS MiB braid/aria/tuned", "targets")
	missed := false
	var content *mirror.Content
	for _, sc := range scenarios(pieceLen) {
		if !want[sc.name] {
			continue
		}
		if content == nil || content.Size != size {
			content = mirror.NewContent(size)
		}
		r, err := runScenario(ctx, dir, sc, content, pieceLen, *braidBin, aria, *runs)
		if err != nil {
			return fmt.Errorf("%s: %w", sc.name, err)
		}
		r.print(tw)
		missed = missed || !r.ok()
	}
	if _, err := exec.LookPath("opentracker"); want["torrent"] && err != nil {
		fmt.Fprintln(tw, "torrent    skipped: it needs opentracker (Debian: opentracker; make bench installs it)")
		delete(want, "torrent")
	}
	if want["torrent"] {
		if err := runTorrentScenario(ctx, dir, size, *braidBin, aria, *runs, tw); err != nil {
			return fmt.Errorf("torrent: %w", err)
		}
	}
	if want["webseed"] {
		if err := runWebSeedScenario(ctx, dir, size, *braidBin, aria, *runs, tw); err != nil {
			return fmt.Errorf("webseed: %w", err)
		}
	}
	if want["memory"] {
		sc := scenario{name: "memory", mirrors: []mirrorSpec{{honest: true}, {honest: true}, {honest: true}, {honest: true}}}
		r, err := runScenario(ctx, dir, sc, mirror.NewContent(bigSize), pieceLen, *braidBin, "", 1)
		if err != nil {
			return fmt.Errorf("memory: %w", err)
		}
		r.maxRSS = 100 << 20
		r.print(tw)
		missed = missed || !r.ok()
	}
	for _, b := range batches() {
		if !want[b.name] {
			continue
		}
		r, err := runBatch(ctx, dir, b, pieceLen, *braidBin, aria, *runs)
		if err != nil {
			return fmt.Errorf("%s: %w", b.name, err)
		}
		r.print(tw)
		missed = missed || !r.ok()
	}
	env := &benchEnv{dir: dir, braid: *braidBin, aria: aria, size: size, pieceLen: pieceLen}
	for _, e := range extras {
		if !want[e.name] {
			continue
		}
		ok, err := e.run(ctx, env, out)
		if err != nil {
			return fmt.Errorf("%s: %w", e.name, err)
		}
		missed = missed || !ok
	}
	if missed && *strict {
		return errors.New("a target was missed")
	}
	return nil
}

// extra is a bench case that reports in its own format after the time
// table. Files of this package add theirs to extras in an init function.
type extra struct {
	name  string
	flags func(*flag.FlagSet) // registers its own flags; may be nil
	// run runs the case and reports whether its targets were met.
	run func(ctx context.Context, env *benchEnv, out io.Writer) (bool, error)
}

var extras []extra

// extraNames lists the extra cases for the default of -scenarios.
func extraNames() string {
	var b strings.Builder
	for _, e := range extras {
		b.WriteString("," + e.name)
	}
	return b.String()
}

// benchEnv is what every extra case needs from the command line.
type benchEnv struct {
	dir      string // work folder
	braid    string // braid binary
	aria     string // aria2c binary, "" when not installed
	size     int64  // file size of the rate-limited cases
	pieceLen int64
}

// rowFormat lays out the table in fixed columns, so rows can be printed
// as each scenario ends.
const rowFormat = "%-10s %9s %7s %7s %12s %7s %13s %7s %12s %23s %9s %37s  %s\n"

// result is one scenario's figures.
type result struct {
	name     string
	size     int64
	ideal    time.Duration // 0: unlimited
	braid    time.Duration
	braidRSS int64
	// braidAnon is the anonymous part of braid's peak (see rss_linux.go).
	braidAnon int64
	braidCPU  time.Duration // user + system time of the leanest run
	arias     []ariaResult  // one per aria2c mode, when aria2c is installed
	target    float64       // most braid÷ideal allowed; 0: none
	maxRSS    int64         // most resident memory allowed; 0: no check
	cpuLimit  float64       // most CPU allowed as a multiple of aria2c's defaults'; 0: no limit
	ariaShare float64       // most wall time allowed as a share of aria2c's defaults'; 0: aria2c's own
}

// ok reports whether braid met the scenario's targets: its ratio to the
// ideal, never slower than aria2c, and its memory.
func (r result) ok() bool { return r.verdict() == "met" }

func (r result) verdict() string {
	var missed []string
	if r.target > 0 && r.braid.Seconds() > r.target*r.ideal.Seconds() {
		missed = append(missed, fmt.Sprintf("over %.2f× ideal", r.target))
	}
	for _, a := range r.arias {
		if a.err == nil && r.braid > a.wall {
			missed = append(missed, "slower than aria2c "+a.mode)
		}
	}
	if a := r.defaultAria(); r.ariaShare > 0 && a != nil && r.braid.Seconds() > r.ariaShare*a.wall.Seconds() {
		missed = append(missed, fmt.Sprintf("over %g× aria2c's time", r.ariaShare))
	}
	if a := r.defaultAria(); r.cpuLimit > 0 && a != nil && r.braidCPU.Seconds() > r.cpuLimit*a.cpu.Seconds() {
		if r.cpuLimit == 1 {
			missed = append(missed, "more CPU than aria2c")
		} else {
			missed = append(missed, fmt.Sprintf("over %g× aria2c's CPU", r.cpuLimit))
		}
	}
	if r.maxRSS > 0 && r.braidRSS > r.maxRSS {
		missed = append(missed, fmt.Sprintf("over %d MiB", r.maxRSS>>20))
	}
	if len(missed) == 0 {
		return "met"
	}
	return "MISSED: " + strings.Join(missed, ", ")
}

// defaultAria is aria2c's first mode (its defaults), when it ran.
func (r result) defaultAria() *ariaResult {
	if len(r.arias) == 0 || r.arias[0].err != nil || r.arias[0].wall == 0 {
		return nil
	}
	return &r.arias[0]
}

func (r result) print(w io.Writer) {
	ratio := func(d time.Duration) string {
		if r.ideal == 0 {
			return fmt.Sprintf("%.0f MB/s", float64(r.size)/d.Seconds()/mb)
		}
		return fmt.Sprintf("%.3f", d.Seconds()/r.ideal.Seconds())
	}
	ideal := "-"
	if r.ideal > 0 {
		ideal = fmt.Sprintf("%.2fs", r.ideal.Seconds())
	}
	mib := func(n, anon int64) string {
		if anon == 0 {
			return fmt.Sprintf("%.1f", float64(n)/(1<<20))
		}
		return fmt.Sprintf("%.1f (%.1f)", float64(n)/(1<<20), float64(anon)/(1<<20))
	}
	cols := []string{"-", "-", "-", "-"} // aria2c default and tuned: time, ratio
	cpu := fmt.Sprintf("%.2f", r.braidCPU.Seconds())
	rss := mib(r.braidRSS, r.braidAnon)
	for i, a := range r.arias[:min(len(r.arias), 2)] {
		switch {
		case a.err != nil:
			cols[2*i] = "failed"
			fmt.Fprintf(os.Stderr, "aria2c %s in %s: %v\n", a.mode, r.name, a.err)
		case a.wall > 0:
			cols[2*i], cols[2*i+1] = fmt.Sprintf("%.2fs", a.wall.Seconds()), ratio(a.wall)
			cpu += fmt.Sprintf(" / %.2f", a.cpu.Seconds())
			rss += " / " + mib(a.rss, a.anon)
		}
	}
	cpuRatio := "-"
	if a := r.defaultAria(); a != nil && a.cpu > 0 {
		cpuRatio = fmt.Sprintf("%.2f", r.braidCPU.Seconds()/a.cpu.Seconds())
	}
	fmt.Fprintf(w, rowFormat, r.name, humanSize(r.size), ideal, fmt.Sprintf("%.2fs", r.braid.Seconds()),
		ratio(r.braid), cols[0], cols[1], cols[2], cols[3], cpu, cpuRatio, rss, r.verdict())
}

func runScenario(ctx context.Context, dir string, sc scenario, c *mirror.Content, pieceLen int64, braid, aria string, runs int) (result, error) {
	res := result{name: sc.name, size: c.Size, target: sc.target, cpuLimit: sc.cpuLimit}
	var urls []string
	var honestRate int64
	unlimited := false
	for i, ms := range sc.mirrors {
		s, err := mirror.Start(c, fmt.Sprintf("127.0.0.%d", i+2), ms.Behaviour)
		if err != nil {
			return res, err
		}
		defer s.Close()
		urls = append(urls, s.URL())
		if ms.honest {
			honestRate += ms.Rate
			unlimited = unlimited || ms.Rate == 0
		}
	}
	if !unlimited {
		res.ideal = time.Duration(float64(c.Size) / float64(honestRate) * float64(time.Second))
	}
	meta, err := writeMeta4(dir, c, pieceLen, urls)
	if err != nil {
		return res, err
	}
	defer os.Remove(meta)

	check := func(out string) error { return checkFile(filepath.Join(out, "file.bin"), c.Size) }
	err = measure(ctx, dir, &res, metalinkRun(meta, check), braid, aria, runs)
	return res, err
}

// best is the fastest run.
func best(rs []childRun) childRun {
	return slices.MinFunc(rs, func(a, b childRun) int { return cmp.Compare(a.wall, b.wall) })
}

// loadAvg is the system's load over 1, 5 and 15 minutes, for the record.
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	return strings.Join(f[:min(3, len(f))], " ")
}

// checkFile checks that a downloader left a file of the right size (both
// downloaders verify the hashes themselves).
func checkFile(path string, size int64) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	if fi.Size() != size {
		return fmt.Errorf("%s: %d bytes, expected %d", path, fi.Size(), size)
	}
	return nil
}

// childOutput shows the downloaders' output (-v).
var childOutput bool

// runChild runs a downloader in a fresh folder and returns its wall and
// CPU time and its peak resident memory.
func runChild(ctx context.Context, dir, bin string, args ...string) (childRun, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return childRun{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()
	cmd, peak := childCommand(ctx, bin, args...)
	var stderr strings.Builder
	cmd.Stdout, cmd.Stderr = io.Discard, &stderr
	if childOutput {
		cmd.Stdout, cmd.Stderr = os.Stderr, io.MultiWriter(os.Stderr, &stderr)
	}
	start := time.Now()
	err := cmd.Run()
	elapsed := time.Since(start)
	ps := cmd.ProcessState
	mem := peak(ps)
	if err != nil {
		return childRun{}, fmt.Errorf("%w: %s", err, lastLines(stderr.String(), 5))
	}
	return childRun{wall: elapsed, cpu: ps.UserTime() + ps.SystemTime(), rss: mem.rss, anon: mem.anon}, nil
}

// childRun is one child process's figures.
type childRun struct {
	wall, cpu time.Duration
	rss       int64
	anon      int64 // peak anonymous memory (see rss_linux.go); 0: unknown
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(lines[max(len(lines)-n, 0):], "\n")
}
