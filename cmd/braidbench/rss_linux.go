package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

// On Linux a child's ru_maxrss is not its own peak when its parent is
// large: os/exec starts children with vfork (CLONE_VM), and exec records
// the high-water mark of the memory it leaves, which is the parent's, as
// the child's peak (fs/exec.c, exec_mmap → setmax_mm_hiwater_rss). The
// torrent scenario's three in-process seeders map the 256 MiB file each
// (anacrolix's file storage defaults to mmap, storage/file-client.go), so
// braidbench reaches ~800 MiB and every child reported that much. So
// children are started through braidbench itself in a small mode
// (measureEnv): it starts the downloader from a fresh, small process and
// writes the downloader's own peak to a file. The floor this leaves is
// that small process's resident size (a few MiB).
//
// The same small process samples the downloader's RssAnon in
// /proc/PID/status every 10 ms: the anonymous part of its memory (heap,
// stacks, what it allocated), as against the pages of its own binary and
// libraries, which the page cache holds anyway and any process running
// them shares. A Go binary of 33 MB has some 21 MiB of those resident, so
// RSS alone compares binary sizes as much as memory use. A sample can
// miss a peak shorter than 10 ms.

// measureEnv, when set, makes braidbench run its arguments as a command
// and write the command's peak resident bytes to the file it names.
const measureEnv = "BRAIDBENCH_MEASURE_RSS"

func init() {
	if out, ok := os.LookupEnv(measureEnv); ok {
		os.Exit(runMeasured(out, os.Args[1:]))
	}
}

// childCommand returns the command that runs bin with args, and how to
// read its peak resident bytes once it has ended.
func childCommand(ctx context.Context, bin string, args ...string) (*exec.Cmd, func(*os.ProcessState) memPeak) {
	self, err := os.Executable()
	if err != nil {
		return directCommand(ctx, bin, args...)
	}
	f, err := os.CreateTemp("", "braidbench-rss-")
	if err != nil {
		return directCommand(ctx, bin, args...)
	}
	f.Close()
	cmd := exec.CommandContext(ctx, self, append([]string{bin}, args...)...)
	cmd.Env = append(os.Environ(), measureEnv+"="+f.Name())
	return cmd, func(*os.ProcessState) memPeak {
		defer os.Remove(f.Name())
		b, err := os.ReadFile(f.Name())
		if err != nil {
			return memPeak{}
		}
		var p memPeak
		fmt.Sscan(string(b), &p.rss, &p.anon)
		return p
	}
}

// runMeasured runs args[0] with the rest as its arguments, writes its
// peak resident and peak anonymous bytes to out, and returns the exit
// status to end with.
func runMeasured(out string, args []string) int {
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, "braidbench: nothing to measure")
		return 2
	}
	// The child dies with the thread that started it (Pdeathsig), so a
	// benchmark that kills this process leaves no downloader running.
	runtime.LockOSThread()
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.Env = os.Environ()
	for i, e := range cmd.Env {
		if strings.HasPrefix(e, measureEnv+"=") {
			cmd.Env = append(cmd.Env[:i:i], cmd.Env[i+1:]...)
			break
		}
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "braidbench:", err)
		return 1
	}
	done := make(chan struct{})
	var anon atomic.Int64
	go func() {
		t := time.NewTicker(10 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case s := <-sig:
				cmd.Process.Signal(s)
			case <-t.C:
				if n := rssAnon(cmd.Process.Pid); n > anon.Load() {
					anon.Store(n)
				}
			case <-done:
				return
			}
		}
	}()
	err := cmd.Wait()
	close(done)
	peaks := fmt.Sprintf("%d %d", maxRSS(cmd.ProcessState), anon.Load())
	if err := os.WriteFile(out, []byte(peaks), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "braidbench:", err)
		return 1
	}
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return max(exit.ExitCode(), 1)
	}
	if err != nil {
		return 1
	}
	return 0
}

// rssAnon is a running process's resident anonymous memory in bytes,
// from /proc/PID/status; 0 when it cannot be read (the process ended).
func rssAnon(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "RssAnon:"); ok {
			f := strings.Fields(v)
			if len(f) == 2 && f[1] == "kB" {
				n, _ := strconv.ParseInt(f[0], 10, 64)
				return n << 10
			}
		}
	}
	return 0
}
