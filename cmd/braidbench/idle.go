package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"braid/bench/mirror"
)

// The idle case: a finished torrent seeding with no peer in sight (a
// tracker that does not answer, no web seed; the DHT on, as both
// downloaders have it by default, with nobody to reach), for -idle-time. Each downloader finds
// the file already in its folder, checks it, says it is seeding, and from
// then on has nothing to do: the CPU it uses in the next -idle-time is
// its cost of doing nothing. Target: under 1 % of a core.

var idleTime = new(time.Duration)

// idleSize is the torrent's size: large enough that a per-piece cost
// shows, small enough that the check before seeding is quick.
const idleSize = 64 << 20

// idleLimit is the most CPU a downloader may use while idle, in
// seconds per second.
const idleLimit = 0.01

func init() {
	extras = append(extras, extra{name: "idle", run: runIdle, flags: func(fs *flag.FlagSet) {
		fs.DurationVar(idleTime, "idle-time", 20*time.Second, "how long the idle case seeds once the torrent is checked")
	}})
}

func runIdle(ctx context.Context, env *benchEnv, out io.Writer) (bool, error) {
	c := mirror.NewContent(idleSize)
	fmt.Fprintf(out, "\nidle: a finished %s torrent seeding, no peer, tracker and DHT unreachable; CPU over %s once seeding\n",
		humanSize(idleSize), *idleTime)
	type tool struct {
		name  string
		bin   string
		args  func(o string) []string
		ready string // in its output once it seeds
	}
	tools := []tool{{"braid", env.braid, func(o string) []string {
		return []string{"get", "--json", "--seed-time", "1h", "--state", o + "-state", "-d", o, ""}
	}, `"state":"seeding"`}}
	if env.aria != "" {
		tools = append(tools, tool{"aria2c", env.aria, func(o string) []string {
			return []string{"--no-conf", "--seed-time=60", "--check-integrity=true", "--summary-interval=1", "-d", o, ""}
		}, "SEED("})
	}
	ok := true
	for _, tl := range tools {
		o := filepath.Join(env.dir, "idle-"+tl.name)
		tf, err := idleTorrent(o, c)
		if err != nil {
			return false, err
		}
		args := tl.args(o)
		args[len(args)-1] = tf
		r, err := runIdleChild(ctx, tl.bin, args, tl.ready, *idleTime)
		os.RemoveAll(o)
		os.RemoveAll(o + "-state")
		os.Remove(tf)
		if err != nil {
			return false, fmt.Errorf("%s: %w", tl.name, err)
		}
		share := r.cpu.Seconds() / idleTime.Seconds()
		verdict := ""
		if tl.name == "braid" {
			verdict = "  met"
			if share > idleLimit {
				verdict, ok = fmt.Sprintf("  MISSED: over %.0f %% of a core", idleLimit*100), false
			}
		}
		fmt.Fprintf(out, "  %-7s CPU %.2fs in %s idle = %.2f %% of a core; peak RSS %.1f MiB%s\n",
			tl.name, r.cpu.Seconds(), *idleTime, share*100, float64(r.rss)/(1<<20), verdict)
	}
	return ok, nil
}

// idleTorrent writes the content as o/file.bin and a .torrent of it (a
// dead tracker, no web seed) beside o, and returns the .torrent's path.
func idleTorrent(o string, c *mirror.Content) (string, error) {
	p := filepath.Join(o, "file.bin")
	if err := writeContent(p, c); err != nil {
		return "", err
	}
	// A tracker that is not there: nothing listens on port 1.
	tf := o + ".torrent"
	_, err := writeTorrent(tf, p, "http://127.0.0.1:1/announce")
	return tf, err
}

// runIdleChild runs bin until a line of its output contains ready, then
// measures the CPU it uses in the next d, stops it with SIGINT, and
// returns that CPU time and its peak resident memory.
func runIdleChild(ctx context.Context, bin string, args []string, ready string, d time.Duration) (childRun, error) {
	ctx, cancel := context.WithTimeout(ctx, d+5*time.Minute)
	defer cancel()
	cmd, peak := childCommand(ctx, bin, args...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return childRun{}, err
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if childOutput {
		cmd.Stderr = io.MultiWriter(os.Stderr, &stderr)
	}
	if err := cmd.Start(); err != nil {
		return childRun{}, err
	}
	seeding := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stdout)
		found := false
		for sc.Scan() {
			if childOutput {
				fmt.Fprintln(os.Stderr, sc.Text())
			}
			if !found && strings.Contains(sc.Text(), ready) {
				found = true
				close(seeding)
			}
		}
		io.Copy(io.Discard, stdout)
	}()
	var r childRun
	select {
	case <-seeding:
		pid := downloaderPID(cmd.Process.Pid)
		before, err := processCPU(pid)
		if err == nil {
			time.Sleep(d)
			var after time.Duration
			if after, err = processCPU(pid); err == nil {
				r.cpu = after - before
			}
		}
		cmd.Process.Signal(os.Interrupt)
		werr := cmd.Wait()
		r.rss = peak(cmd.ProcessState).rss
		if err != nil {
			return r, err
		}
		var exit *exec.ExitError
		if werr != nil && !errors.As(werr, &exit) {
			return r, werr
		}
		return r, nil
	case <-ctx.Done():
		cmd.Process.Kill()
		cmd.Wait()
		return r, fmt.Errorf("it never said it was seeding: %s", lastLines(stderr.String(), 5))
	}
}

// downloaderPID is the process that runs the downloader: childCommand
// may start it through a small process of braidbench's own (rss_linux.go),
// whose one child it then is.
func downloaderPID(pid int) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", pid, pid))
	if err != nil {
		return pid
	}
	if f := strings.Fields(string(b)); len(f) == 1 {
		if n, err := strconv.Atoi(f[0]); err == nil {
			return n
		}
	}
	return pid
}

// processCPU is a running process's user + system time, from
// /proc/PID/stat (fields 14 and 15, in clock ticks of 1/100 s on Linux).
func processCPU(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, fmt.Errorf("the idle case reads /proc (Linux only): %w", err)
	}
	// The command name (field 2) is in parentheses and may hold spaces.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, fmt.Errorf("/proc/%d/stat: unexpected %q", pid, s)
	}
	f := strings.Fields(s[i+1:]) // from field 3
	if len(f) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: unexpected %q", pid, s)
	}
	var ticks int64
	for _, v := range f[11:13] {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("/proc/%d/stat: %w", pid, err)
		}
		ticks += n
	}
	return time.Duration(ticks) * time.Second / 100, nil
}
