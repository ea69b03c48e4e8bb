//go:build !headless

package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"braid/engine/metalink"
	"braid/queue"
)

// BenchmarkIdleWindowCPU measures the CPU an idle window uses, next to a
// bare Fyne window of the same size on the same X display in the same run
// (ui/testdata/barefyne): Braid over a queue of 1,000 finished downloads,
// before any dialog was opened and after Add URL and Settings were opened
// and closed again and again through the keyboard (xdotool). Each
// iteration reads both processes' CPU time (/proc/PID/stat) over
// idleSpan; the figures are reported as braid-%cpu and bare-%cpu (per cent
// of one core) and their ratio.
func BenchmarkIdleWindowCPU(b *testing.B) {
	xvfb, err := exec.LookPath("Xvfb")
	if err != nil {
		b.Skip("Xvfb is not installed (Debian: apt-get install xvfb)")
	}
	xdotool := needXdotool(b)
	tmp := b.TempDir()
	bin := buildBraid(b)
	bare := filepath.Join(tmp, "barefyne")
	if out, err := exec.Command("go", "build", "-tags", tags, "-o", bare, "../../ui/testdata/barefyne").CombinedOutput(); err != nil {
		b.Fatalf("go build barefyne: %v\n%s", err, out)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	display := startXvfb(b, xvfb)

	state := filepath.Join(tmp, "state")
	dest := filepath.Join(tmp, "downloads")
	home := filepath.Join(tmp, "home")
	for _, d := range []string{dest, home, filepath.Join(tmp, "run")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			b.Fatal(err)
		}
	}
	q, err := queue.Open(state)
	if err != nil {
		b.Fatal(err)
	}
	for i := range 1000 {
		name := fmt.Sprintf("file-%04d.bin", i)
		src := "http://127.0.0.1:9/" + name
		doc := &metalink.Document{Version: 4, Files: []metalink.File{{Name: name, Size: 1 << 20, URLs: []metalink.URL{{URL: src, Priority: 1}}}}}
		id, err := q.Add(queue.NewJob{Source: src, Dest: dest, Doc: doc})
		if err == nil {
			_, err = q.Finish(id)
		}
		if err != nil {
			q.Close()
			b.Fatal(err)
		}
	}
	q.Close()

	env := windowEnv(display, tmp, state)
	var out syncBuffer
	start := func(path string) *exec.Cmd { return startWindow(ctx, b, path, env, &out) }
	xdo := xdoRunner(ctx, b, xdotool, env, &out)
	bareCmd := start(bare)
	xdo("search", "--sync", "--name", "^Bare Fyne$")
	braidCmd := start(bin)
	wid := strings.Fields(xdo("search", "--sync", "--name", "^Braid$"))[0]
	time.Sleep(3 * time.Second) // the queue loaded and drawn

	opened := 0
	open := func(n int) {
		for ; opened < n; opened++ {
			xdo("windowfocus", "--sync", wid)
			key := "ctrl+n" // Add URL
			if opened%2 == 1 {
				key = "ctrl+comma" // Settings
			}
			xdo("key", key)
			time.Sleep(700 * time.Millisecond)
			xdo("key", "Escape")
			time.Sleep(300 * time.Millisecond)
		}
		xdo("mousemove", "1200", "780") // off both windows: nothing hovered
		time.Sleep(2 * time.Second)
	}
	for _, n := range []int{0, 2, 10} {
		b.Run(fmt.Sprintf("dialogs=%d", n), func(b *testing.B) {
			open(n)
			var braidCPU, bareCPU, wall time.Duration
			for b.Loop() {
				a0, b0 := cpuTime(b, braidCmd.Process.Pid), cpuTime(b, bareCmd.Process.Pid)
				t0 := time.Now()
				time.Sleep(idleSpan)
				wall += time.Since(t0)
				braidCPU += cpuTime(b, braidCmd.Process.Pid) - a0
				bareCPU += cpuTime(b, bareCmd.Process.Pid) - b0
			}
			br := 100 * braidCPU.Seconds() / wall.Seconds()
			ba := 100 * bareCPU.Seconds() / wall.Seconds()
			b.ReportMetric(br, "braid-%cpu")
			b.ReportMetric(ba, "bare-%cpu")
			if ba > 0 {
				b.ReportMetric(br/ba, "braid/bare")
			}
		})
	}
}

// idleSpan is how long one iteration of BenchmarkIdleWindowCPU watches.
const idleSpan = 5 * time.Second

// cpuTime is the user and system CPU time process pid has used, all its
// threads together (/proc/PID/stat fields 14 and 15, in clock ticks of
// 1/100 s on Linux).
func cpuTime(b *testing.B, pid int) time.Duration {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		b.Fatal(err)
	}
	// The command name, in parentheses, may hold spaces: count after it.
	s := string(raw)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	utime, err1 := strconv.ParseInt(fields[11], 10, 64)
	stime, err2 := strconv.ParseInt(fields[12], 10, 64)
	if err1 != nil || err2 != nil {
		b.Fatalf("/proc/%d/stat: %q", pid, s)
	}
	return time.Duration(utime+stime) * 10 * time.Millisecond
}
