//go:build !headless

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"braid/engine/mirrortest"
	"braid/engine/torrent/torrenttest"
	"braid/queue"
)

// BenchmarkIdleSeedingWindow measures what two finished torrents cost the
// window while they seed to nobody (issue 23 saw 1.6 cores): the real
// binary is given two .torrent files whose data is already in its
// download folder, with a tracker that refuses and the DHT on with
// nobody to reach; once both seed, each iteration reads its CPU time and
// that of a bare Fyne window on the same display over idleSpan. Reported
// as braid-%cpu, bare-%cpu and seeding-%cpu (the difference: what the
// seeding costs above an idle window's floor), per cent of one core.
func BenchmarkIdleSeedingWindow(b *testing.B) {
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
	display := startXvfb(b, xvfb)

	state := filepath.Join(tmp, "state")
	dest := filepath.Join(tmp, "downloads")
	for _, d := range []string{dest, filepath.Join(tmp, "home"), filepath.Join(tmp, "run")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			b.Fatal(err)
		}
	}
	// A tracker address nobody answers on.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	tracker := "http://" + l.Addr().String() + "/announce"
	l.Close()
	var torrents []string
	for i, size := range []int{48 << 20, 16 << 20} {
		name := fmt.Sprintf("seed-%d.bin", i)
		mi := torrenttest.Make(b, dest, name, 256<<10, []torrenttest.File{{Data: mirrortest.Bytes(size, uint64(40+i))}})
		mi.Announce = tracker
		torrents = append(torrents, torrenttest.WriteFile(b, mi, name+".torrent"))
	}
	q, err := queue.Open(state)
	if err != nil {
		b.Fatal(err)
	}
	err = q.UpdateSettings(func(st *queue.Settings) { st.Torrent = queue.TorrentSettings{SeedRatio: 1, Discovery: true} })
	if err == nil {
		err = q.UpdateSettings(func(s *queue.Settings) { s.DownloadDir = dest })
	}
	q.Close()
	if err != nil {
		b.Fatal(err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	env := windowEnv(display, tmp, state, "BRAID_AUTOADD=1")
	var out syncBuffer
	xdo := xdoRunner(ctx, b, xdotool, env, &out)
	bareCmd := startWindow(ctx, b, bare, env, &out)
	xdo("search", "--sync", "--name", "^Bare Fyne$")
	braidCmd := exec.CommandContext(ctx, bin, torrents...)
	braidCmd.Env = env
	braidCmd.Stdout, braidCmd.Stderr = &out, &out
	if err := braidCmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		_ = braidCmd.Process.Kill()
		_ = braidCmd.Wait()
	})
	// The headless braid execs braid-window: the same process.
	xdo("search", "--sync", "--name", "^Braid$")

	// Seeding: both jobs done in the queue (a seeding torrent is done),
	// then a few seconds for the checks and announces to settle.
	for end := time.Now().Add(2 * time.Minute); ; time.Sleep(500 * time.Millisecond) {
		cmd := exec.CommandContext(ctx, bin, "queue", "--state", state, "list", "--json")
		cmd.Env = env
		raw, _ := cmd.Output()
		var jobs []queueJob
		_ = json.Unmarshal(raw, &jobs)
		done := 0
		for _, j := range jobs {
			if j.State == "done" {
				done++
			}
		}
		if done == len(torrents) {
			break
		}
		if time.Now().After(end) {
			b.Fatalf("the torrents never finished checking: %s\n%s", raw, out.String())
		}
	}
	xdo("mousemove", "1200", "780") // off both windows: nothing hovered
	time.Sleep(5 * time.Second)
	pid := braidCmd.Process.Pid

	var braidCPU, bareCPU, wall time.Duration
	for b.Loop() {
		a0, b0 := cpuTime(b, pid), cpuTime(b, bareCmd.Process.Pid)
		t0 := time.Now()
		time.Sleep(idleSpan)
		wall += time.Since(t0)
		braidCPU += cpuTime(b, pid) - a0
		bareCPU += cpuTime(b, bareCmd.Process.Pid) - b0
	}
	br := 100 * braidCPU.Seconds() / wall.Seconds()
	ba := 100 * bareCPU.Seconds() / wall.Seconds()
	b.ReportMetric(br, "braid-%cpu")
	b.ReportMetric(ba, "bare-%cpu")
	b.ReportMetric(br-ba, "seeding-%cpu")
}
