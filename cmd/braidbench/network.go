package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"syscall"
	"time"

	"braid/bench/mirror"
)

// The network cases of issue 10: how much a downloader fetches again after
// kill -9, and how much the servers send for one file from a mix of HTTP,
// FTP and a server that ignores Range.

// Targets of issue 10.
const (
	crashLimit = 8 << 20 // most refetched at any kill point
	wasteLimit = 1.05    // most bytes served ÷ file size
)

var (
	kills     = new(int)
	crashRate = new(int64)
	mixedRate = new(int64)
)

func init() {
	extras = append(extras,
		extra{name: "crash", run: runCrash, flags: func(fs *flag.FlagSet) {
			fs.IntVar(kills, "kills", 10, "kill points of the crash case")
			fs.Int64Var(crashRate, "crash-rate", 30, "MB/s of each of the crash case's two mirrors")
		}},
		extra{name: "protocols", run: runProtocols, flags: func(fs *flag.FlagSet) {
			fs.Int64Var(mixedRate, "protocols-rate", 30, "MB/s of each mirror of the protocols case")
		}},
	)
}

// served sums what a case's servers sent.
type servedBy []interface{ Served() int64 }

func (s servedBy) total() int64 {
	var n int64
	for _, m := range s {
		n += m.Served()
	}
	return n
}

// runCrash downloads from two mirrors, kills the downloader with SIGKILL
// at random moments and runs it again to the end, each time counting what
// the mirrors sent beyond the file.
func runCrash(ctx context.Context, env *benchEnv, out io.Writer) (bool, error) {
	c := mirror.NewContent(env.size)
	var servers servedBy
	var urls []string
	for i := range 2 {
		s, err := mirror.Start(c, fmt.Sprintf("127.0.0.%d", i+2), mirror.Behaviour{Rate: *crashRate * mb})
		if err != nil {
			return false, err
		}
		defer s.Close()
		servers = append(servers, s)
		urls = append(urls, s.URL())
	}
	meta, err := writeMeta4(env.dir, c, env.pieceLen, urls)
	if err != nil {
		return false, err
	}
	defer os.Remove(meta)
	ideal := time.Duration(float64(env.size) / float64(2**crashRate*mb) * float64(time.Second))
	r := rand.New(rand.NewPCG(10, 10))
	points := make([]time.Duration, *kills)
	for i := range points {
		points[i] = time.Duration((0.1 + 0.8*r.Float64()) * float64(ideal))
	}
	tools := []struct {
		name string
		args func(out, state string) (string, []string)
	}{
		{"braid", func(o, st string) (string, []string) {
			return env.braid, []string{"get", "--state", st, "-d", o, meta}
		}},
	}
	if env.aria != "" {
		tools = append(tools, struct {
			name string
			args func(out, state string) (string, []string)
		}{"aria2c", func(o, _ string) (string, []string) {
			return env.aria, []string{"-M", meta, "-d", o, "--allow-overwrite=false"}
		}})
	}
	fmt.Fprintf(out, "\ncrash: %s from two %d MB/s mirrors, SIGKILL at %d random moments, then run again to the end\n",
		humanSize(env.size), *crashRate, len(points))
	ok := true
	for _, tool := range tools {
		var refetched []int64
		for i, at := range points {
			o := filepath.Join(env.dir, "crash-"+tool.name)
			st := filepath.Join(env.dir, "crash-state")
			bin, args := tool.args(o, st)
			before := servers.total()
			if err := os.MkdirAll(o, 0o755); err != nil {
				return false, err
			}
			finished, err := killAt(ctx, at, bin, args...)
			if err == nil {
				_, err = runChild(ctx, o, bin, args...)
			}
			if err == nil {
				err = checkFile(filepath.Join(o, "file.bin"), env.size)
			}
			os.RemoveAll(o)
			os.RemoveAll(st)
			if err != nil {
				return false, fmt.Errorf("%s, kill %d: %w", tool.name, i+1, err)
			}
			if finished {
				fmt.Fprintf(out, "  %s finished before its kill at %.1fs\n", tool.name, at.Seconds())
			}
			refetched = append(refetched, servers.total()-before-env.size)
		}
		slices.Sort(refetched)
		mib := func(n int64) string { return fmt.Sprintf("%.1f", float64(n)/(1<<20)) }
		line := fmt.Sprintf("  %-7s refetched MiB: min %s  median %s  max %s  (all: ", tool.name,
			mib(refetched[0]), mib(refetched[len(refetched)/2]), mib(refetched[len(refetched)-1]))
		for i, n := range refetched {
			if i > 0 {
				line += " "
			}
			line += mib(n)
		}
		line += ")"
		if tool.name == "braid" {
			if refetched[len(refetched)-1] > crashLimit {
				line += fmt.Sprintf("  MISSED: over %d MiB", crashLimit>>20)
				ok = false
			} else {
				line += "  met"
			}
		}
		fmt.Fprintln(out, line)
	}
	return ok, nil
}

// killAt starts bin, and kills it with SIGKILL after d unless it ended
// before; it reports whether it ended by itself.
func killAt(ctx context.Context, d time.Duration, bin string, args ...string) (bool, error) {
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
	if childOutput {
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	}
	if err := cmd.Start(); err != nil {
		return false, err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case err := <-done:
		return true, err
	case <-t.C:
		cmd.Process.Signal(syscall.SIGKILL)
		<-done
		return false, nil
	}
}

// runProtocols downloads from an HTTP mirror, an FTP mirror and an HTTP
// mirror that ignores Range, and reports what the servers sent for it.
func runProtocols(ctx context.Context, env *benchEnv, out io.Writer) (bool, error) {
	c := mirror.NewContent(env.size)
	rate := *mixedRate * mb
	h, err := mirror.Start(c, "127.0.0.2", mirror.Behaviour{Rate: rate})
	if err != nil {
		return false, err
	}
	defer h.Close()
	f, err := mirror.StartFTP(c, "127.0.0.3", mirror.Behaviour{Rate: rate})
	if err != nil {
		return false, err
	}
	defer f.Close()
	whole, err := mirror.Start(c, "127.0.0.4", mirror.Behaviour{Rate: rate, NoRanges: true})
	if err != nil {
		return false, err
	}
	defer whole.Close()
	servers := servedBy{h, f, whole}
	meta, err := writeMeta4(env.dir, c, env.pieceLen, []string{h.URL(), f.URL(), whole.URL()})
	if err != nil {
		return false, err
	}
	defer os.Remove(meta)
	fmt.Fprintf(out, "\nprotocols: %s from HTTP, FTP and an HTTP server without ranges, %d MB/s each\n", humanSize(env.size), *mixedRate)
	ok := true
	run := func(name, bin string, args ...string) error {
		o := filepath.Join(env.dir, "protocols-"+name)
		before := []int64{h.Served(), f.Served(), whole.Served()}
		retrs := f.Retrs()
		r, err := runChild(ctx, o, bin, args...)
		if err == nil {
			err = checkFile(filepath.Join(o, "file.bin"), env.size)
		}
		os.RemoveAll(o)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		total := servers.total() - before[0] - before[1] - before[2]
		ratio := float64(total) / float64(env.size)
		verdict := ""
		if name == "braid" {
			verdict = "  met"
			if ratio > wasteLimit {
				verdict, ok = fmt.Sprintf("  MISSED: over %.2f×", wasteLimit), false
			}
		}
		fmt.Fprintf(out, "  %-7s %.2fs  CPU %.2fs  RSS %.1f MiB  served %.3f× the file (HTTP %s, FTP %s in %d transfers, no-range %s)%s\n",
			name, r.wall.Seconds(), r.cpu.Seconds(), float64(r.rss)/(1<<20), ratio, humanSize(h.Served()-before[0]), humanSize(f.Served()-before[1]),
			f.Retrs()-retrs, humanSize(whole.Served()-before[2]), verdict)
		return nil
	}
	state := filepath.Join(env.dir, "protocols-state")
	defer os.RemoveAll(state)
	if err := run("braid", env.braid, "get", "--state", state, "-d", filepath.Join(env.dir, "protocols-braid"), meta); err != nil {
		return false, err
	}
	if env.aria != "" {
		if err := run("aria2c", env.aria, "-M", meta, "-d", filepath.Join(env.dir, "protocols-aria2c")); err != nil {
			return false, err
		}
	}
	return ok, nil
}
