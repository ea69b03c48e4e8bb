//go:build !headless

package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"braid/engine/metalink"
	"braid/queue"
)

// scaleJobs is how many jobs BenchmarkWindow10000Jobs puts in the queue.
const scaleJobs = 10000

// BenchmarkWindow10000Jobs measures the real window (Xvfb, driven through
// xdotool as a user's keys and wheel would) over a queue of 10,000 jobs:
// nine in ten finished, one in ten paused, so nothing downloads. Each
// iteration starts from a copy of the same queue and reports, as metrics:
//
//   - start-ms: from starting braid to its first frame that shows the
//     queue as it then stays (the window's pixels, read with xwd, stop
//     changing and it shows the first job); floor-start-ms the same for
//     a braid over an empty queue, started first on the same display;
//   - idle-%cpu and floor-%cpu: the CPU (per cent of one core) of that
//     window and, over the same span, of a second braid on the same
//     display over an empty queue, both idle, and their ratio;
//   - scroll-ms and scroll-cpu-ms: 40 turns of the mouse wheel over the
//     list, 20 ms apart, and the time from the last turn until the frame
//     stops changing, with the CPU the window spent;
//   - selectall-ms: Ctrl+A until every row is drawn selected;
//   - askremove-ms: Delete until the dialog asking to remove the 10,000
//     downloads is drawn;
//   - remove-ms: Enter in that dialog until the window shows an empty
//     queue; selectall+remove-ms is the three together;
//   - start-cpu-ms, selectall+ask-cpu-ms, remove-cpu-ms: the window's CPU
//     time over the same spans (each with the second the picture is
//     watched standing still). On a shared machine the times above wait
//     on other processes; these do not.
//
// Both windows run the test mode that writes their texts twice a second
// (BRAID_DUMP_TEXTS), which reads up to 500 rows of the list: over
// 10,000 jobs that reading is part of each figure but the idle ones,
// for which it is held (see its profile with BRAID_CPUPROFILE).
//
// A frame counts as drawn when screenshots of the window taken back to
// back (each takes some tens of milliseconds, the figures' resolution)
// stay the same for a second; the time is that of the first of them.
// With BRAID_TEST_SHOTS=DIR it keeps pictures of each state in DIR.
func BenchmarkWindow10000Jobs(b *testing.B) {
	if runtime.GOOS == "windows" {
		b.Skip("drives a real window on Xvfb with xdotool, which are Linux's")
	}
	xvfb, err := exec.LookPath("Xvfb")
	if err != nil {
		b.Skip("Xvfb is not installed (Debian: apt-get install xvfb); this benchmark runs the real window on it")
	}
	xdotool := needXdotool(b)
	xwd, err := exec.LookPath("xwd")
	if err != nil {
		b.Skip("xwd is not installed (Debian: apt-get install x11-apps); this benchmark reads the window's pixels with it")
	}
	tmp := b.TempDir()
	bin := buildBraid(b)
	display := startXvfb(b, xvfb)
	full := filepath.Join(tmp, "full")
	t0 := time.Now()
	fillScale(b, full, filepath.Join(tmp, "downloads"))
	b.Logf("%d jobs queued in %v", scaleJobs, time.Since(t0).Round(time.Millisecond))

	var m scaleMetrics
	for i := 0; b.Loop(); i++ {
		runScale(b, &m, scaleRun{tmp: filepath.Join(tmp, fmt.Sprint("run", i)), bin: bin, display: display,
			xdotool: xdotool, xwd: xwd, full: full})
	}
	m.report(b)
}

// fillScale makes the queue of scaleJobs jobs in state: every tenth one
// paused, the others finished, each one file of 1 MiB whose only mirror
// refuses (port 9 on loopback).
func fillScale(b *testing.B, state, dest string) {
	b.Helper()
	q, err := queue.OpenOptions(state, queue.Options{Synchronous: "NORMAL"})
	if err != nil {
		b.Fatal(err)
	}
	defer q.Close()
	for i := range scaleJobs {
		name := fmt.Sprintf("file-%05d.bin", i)
		src := "http://127.0.0.1:9/" + name
		doc := &metalink.Document{Version: 4, Files: []metalink.File{{Name: name, Size: 1 << 20, URLs: []metalink.URL{{URL: src, Priority: 1}}}}}
		if i%10 == 9 {
			_, err = q.Add(queue.NewJob{Source: src, Dest: dest, Doc: doc, Paused: true})
		} else {
			var id int64
			id, err = q.Add(queue.NewJob{Source: src, Dest: dest, Doc: doc})
			if err == nil {
				_, err = q.Finish(id)
			}
		}
		if err != nil {
			b.Fatal(err)
		}
	}
}

// scaleRun is one iteration's set-up: its own folder, the braid binary,
// the X display and the tools, and the filled queue it copies.
type scaleRun struct {
	tmp, bin, display string
	xdotool, xwd      string
	full              string
}

// scaleMetrics adds up the iterations' figures.
type scaleMetrics struct {
	n                           int
	start, floorStart           time.Duration
	selectAll, ask, remove      time.Duration
	scroll, scrollCPU           time.Duration
	startCPU, askCPU, removeCPU time.Duration
	idleCPU, floorCPU, idleWall time.Duration
}

func (m *scaleMetrics) report(b *testing.B) {
	if m.n == 0 {
		return
	}
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 / float64(m.n) }
	b.ReportMetric(0, "ns/op")
	b.ReportMetric(ms(m.start), "start-ms")
	b.ReportMetric(ms(m.floorStart), "floor-start-ms")
	b.ReportMetric(ms(m.scroll), "scroll-ms")
	b.ReportMetric(ms(m.scrollCPU), "scroll-cpu-ms")
	b.ReportMetric(ms(m.selectAll), "selectall-ms")
	b.ReportMetric(ms(m.ask), "askremove-ms")
	b.ReportMetric(ms(m.remove), "remove-ms")
	b.ReportMetric(ms(m.selectAll+m.ask+m.remove), "selectall+remove-ms")
	b.ReportMetric(ms(m.startCPU), "start-cpu-ms")
	b.ReportMetric(ms(m.askCPU), "selectall+ask-cpu-ms")
	b.ReportMetric(ms(m.removeCPU), "remove-cpu-ms")
	idle := 100 * m.idleCPU.Seconds() / m.idleWall.Seconds()
	floor := 100 * m.floorCPU.Seconds() / m.idleWall.Seconds()
	b.ReportMetric(idle, "idle-%cpu")
	b.ReportMetric(floor, "floor-%cpu")
	if floor > 0 {
		b.ReportMetric(idle/floor, "idle/floor")
	}
}

// scaleIdleSpan is how long the idle windows are watched.
const scaleIdleSpan = 10 * time.Second

func runScale(b *testing.B, m *scaleMetrics, r scaleRun) {
	b.StopTimer()
	defer b.StartTimer()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	state := filepath.Join(r.tmp, "state")
	if err := os.MkdirAll(state, 0o700); err != nil {
		b.Fatal(err)
	}
	for _, name := range []string{queue.DBName, queue.DBName + "-wal", queue.DBName + "-shm"} {
		if err := copyFile(filepath.Join(r.full, name), filepath.Join(state, name)); err != nil && !os.IsNotExist(err) {
			b.Fatal(err)
		}
	}
	// Two users' folders: the two windows are separate instances.
	user := func(dir string) []string {
		for _, d := range []string{filepath.Join(dir, "home"), filepath.Join(dir, "run")} {
			if err := os.MkdirAll(d, 0o700); err != nil {
				b.Fatal(err)
			}
		}
		env := windowEnv(r.display, dir, filepath.Join(dir, "state"), "BRAID_DUMP_TEXTS="+filepath.Join(dir, "texts.txt"))
		if p := os.Getenv(profileEnv); p != "" {
			env = append(env, profileEnv+"="+p)
		}
		return env
	}
	env := user(r.tmp)
	floorDir := filepath.Join(r.tmp, "floor")
	floorEnv := user(floorDir)
	texts := func(dir string) string {
		t, _ := os.ReadFile(filepath.Join(dir, "texts.txt"))
		return string(t)
	}
	var out syncBuffer
	xdo := xdoRunner(ctx, b, r.xdotool, env, &out)
	shots := os.Getenv("BRAID_TEST_SHOTS")
	keep := func(name string) {
		if shots == "" {
			return
		}
		cmd := exec.CommandContext(ctx, r.xwd, "-root", "-silent")
		cmd.Env = env
		raw, err := cmd.Output()
		if err != nil {
			return
		}
		if img, err := decodeXWD(raw); err == nil {
			var buf bytes.Buffer
			if png.Encode(&buf, img) == nil {
				_ = os.WriteFile(filepath.Join(shots, "win10k-"+name+".png"), buf.Bytes(), 0o644)
			}
		}
	}
	windowOf := func(pid int) string {
		for end := time.Now().Add(3 * time.Minute); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
			cmd := exec.CommandContext(ctx, r.xdotool, "search", "--all", "--onlyvisible", "--pid", fmt.Sprint(pid), "--name", "^Braid$")
			cmd.Env = env
			if o, err := cmd.Output(); err == nil {
				if f := strings.Fields(string(o)); len(f) > 0 {
					return f[0]
				}
			}
		}
		b.Fatalf("the window of process %d never showed\n%s", pid, out.String())
		return ""
	}

	// The floor: braid over an empty queue, started first and left idle.
	t0 := time.Now()
	floorCmd := startWindow(ctx, b, r.bin, floorEnv, &out)
	floorWid := windowOf(floorCmd.Process.Pid)
	drawn := settle(ctx, b, r, env, floorWid, &out, "the empty window", func() bool { return strings.Contains(texts(floorDir), "Add URL") })
	m.floorStart += drawn.Sub(t0)

	// Start.
	t0 = time.Now()
	win := startWindow(ctx, b, r.bin, env, &out)
	wid := windowOf(win.Process.Pid)
	drawn, started := settleFrom(ctx, b, r, env, wid, &out, "the queue of 10,000", [32]byte{}, func() bool { return strings.Contains(texts(r.tmp), "file-00000.bin") })
	m.start += drawn.Sub(t0)
	m.startCPU += cpuTime(b, win.Process.Pid)
	keep("start")

	// Idle, beside the floor, with both windows' text dumps held: the
	// figures are the windows' own.
	xdo("mousemove", "1270", "790") // off both windows: nothing hovered
	holds := []string{filepath.Join(r.tmp, "texts.txt.hold"), filepath.Join(floorDir, "texts.txt.hold")}
	for _, h := range holds {
		if err := os.WriteFile(h, nil, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	time.Sleep(2 * time.Second)
	a0, f0, w0 := cpuTime(b, win.Process.Pid), cpuTime(b, floorCmd.Process.Pid), time.Now()
	time.Sleep(scaleIdleSpan)
	m.idleWall += time.Since(w0)
	m.idleCPU += cpuTime(b, win.Process.Pid) - a0
	m.floorCPU += cpuTime(b, floorCmd.Process.Pid) - f0
	for _, h := range holds {
		if err := os.Remove(h); err != nil {
			b.Fatal(err)
		}
	}

	// Scroll: the wheel over the list (its rows are y 150 to 340).
	geo := xdo("getwindowgeometry", "--shell", wid)
	x, y := offset(geo, "400", "250")
	xdo("mousemove", "--sync", x, y)
	c0 := cpuTime(b, win.Process.Pid)
	xdo("click", "--repeat", "40", "--delay", "20", "5")
	t0 = time.Now()
	drawn, _ = settleFrom(ctx, b, r, env, wid, &out, "scrolled", started, func() bool { return true })
	m.scroll += max(drawn.Sub(t0), 0)
	m.scrollCPU += cpuTime(b, win.Process.Pid) - c0
	keep("scrolled")

	// Select all, then remove, with the pointer off the window: nothing
	// hovered (a row's tooltip) changes the picture meanwhile.
	xdo("mousemove", "1270", "790")
	xdo("windowfocus", "--sync", wid)
	c0 = cpuTime(b, win.Process.Pid)
	t0 = time.Now()
	xdo("key", "ctrl+a")
	drawn = settle(ctx, b, r, env, wid, &out, "all selected", func() bool { return true })
	m.selectAll += drawn.Sub(t0)
	keep("selected")
	t0 = time.Now()
	xdo("key", "Delete")
	drawn = settle(ctx, b, r, env, wid, &out, "the remove dialog", func() bool {
		return strings.Contains(texts(r.tmp), fmt.Sprintf("Remove %s downloads", groupThousands(scaleJobs)))
	})
	m.ask += drawn.Sub(t0)
	keep("askremove")
	m.askCPU += cpuTime(b, win.Process.Pid) - c0
	c0 = cpuTime(b, win.Process.Pid)
	t0 = time.Now()
	xdo("key", "Return")
	drawn = settle(ctx, b, r, env, wid, &out, "the empty queue", func() bool {
		t := texts(r.tmp)
		return !strings.Contains(t, "file-") && !strings.Contains(t, "Remove ")
	})
	m.remove += drawn.Sub(t0)
	m.removeCPU += cpuTime(b, win.Process.Pid) - c0
	keep("removed")
	m.n++

	q, err := queue.Open(state)
	if err != nil {
		b.Fatal(err)
	}
	jobs, err := q.List()
	q.Close()
	if err != nil || len(jobs) != 0 {
		b.Fatalf("the queue holds %d jobs (%v) after select all and remove", len(jobs), err)
	}
	quitScale(b, xdo, wid, win)
	quitScale(b, xdo, floorWid, floorCmd)
}

// groupThousands writes n as the window does, with a comma between
// thousands.
func groupThousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// settle takes screenshots of window wid back to back until ready holds
// and the picture has stayed the same for a second, and returns when the
// first of those same pictures was taken. It fails after two minutes.
func settle(ctx context.Context, b *testing.B, r scaleRun, env []string, wid string, out fmt.Stringer, what string, ready func() bool) time.Time {
	at, _ := settleFrom(ctx, b, r, env, wid, out, what, [32]byte{}, ready)
	return at
}

// settleFrom is settle that also waits for a picture other than from
// (the zero hash: any) and returns the settled picture's hash.
func settleFrom(ctx context.Context, b *testing.B, r scaleRun, env []string, wid string, out fmt.Stringer, what string, from [32]byte, ready func() bool) (time.Time, [32]byte) {
	b.Helper()
	var last [32]byte
	var since time.Time
	frames, changes := 0, 0
	for end := time.Now().Add(2 * time.Minute); time.Now().Before(end); {
		at := time.Now()
		cmd := exec.CommandContext(ctx, r.xwd, "-root", "-silent")
		cmd.Env = env
		raw, err := cmd.Output()
		if err != nil {
			time.Sleep(20 * time.Millisecond)
			continue
		}
		sum := sha256.Sum256(raw)
		frames++
		if sum != last || since.IsZero() {
			changes++
			last, since = sum, at
			continue
		}
		if time.Since(since) >= time.Second && sum != from && ready() {
			return since, sum
		}
	}
	shown, _ := os.ReadFile(filepath.Join(r.tmp, "texts.txt"))
	b.Fatalf("%s: the window never settled (%d pictures, %d changes, the last the same as the one before it: %v); it shows:\n%s\n%s",
		what, frames, changes, last == from, shown, out.String())
	return time.Time{}, [32]byte{}
}

// quitScale quits a window as a user does, Ctrl+Q, and waits until its
// process has ended (a zombie until the benchmark's clean-up reaps it),
// so a CPU profile it writes is complete; after 30 s it is killed.
func quitScale(b *testing.B, xdo func(...string) string, wid string, win *exec.Cmd) {
	b.Helper()
	xdo("windowfocus", "--sync", wid)
	xdo("key", "ctrl+q")
	for end := time.Now().Add(30 * time.Second); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", win.Process.Pid))
		s := string(raw)
		if err != nil || strings.HasPrefix(s[strings.LastIndexByte(s, ')')+1:], " Z") {
			return
		}
	}
	b.Logf("the window (process %d) did not quit after Ctrl+Q; killed", win.Process.Pid)
	_ = win.Process.Kill()
}
