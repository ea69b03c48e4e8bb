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
	"strings"
	"testing"
	"time"

	"braid/engine/metalink"
	"braid/engine/mirrortest"
	"braid/engine/torrent/torrenttest"
	"braid/queue"
)

// BenchmarkWindowCPUCombinations measures what the real window costs in
// CPU, per cent of one core, with each combination of what issue 32
// measured: nothing (idle), one torrent seeding to nobody, one download
// waiting for the network (its mirror refuses connections), both of
// these together, and 100 finished downloads. Each combination runs its
// own window over its own queue on the same X display; once the queue is
// as wanted (read with braid queue list --json, from another process)
// and a few seconds have settled, each iteration reads the window's CPU
// time (/proc/PID/stat) over idleSpan. Reported as %cpu. Nothing should
// cost more together than its parts: both ≈ seeding + waiting − idle.
func BenchmarkWindowCPUCombinations(b *testing.B) {
	xvfb, err := exec.LookPath("Xvfb")
	if err != nil {
		b.Skip("Xvfb is not installed (Debian: apt-get install xvfb)")
	}
	xdotool := needXdotool(b)
	bin := buildBraid(b)
	display := startXvfb(b, xvfb)
	for _, c := range []struct {
		name             string
		seed, wait, done bool
		peer             bool // the torrent is fetched from a peer that stays
		pick             bool // the first row is selected: the details show it
	}{
		{name: "idle"},
		{name: "seeding", seed: true},
		{name: "waiting", wait: true},
		{name: "both", seed: true, wait: true},
		// The same with the torrent fetched from a seed that stays
		// connected, and with the seed's row selected.
		{name: "both-peer", seed: true, wait: true, peer: true},
		{name: "both-selected", seed: true, wait: true, pick: true},
		{name: "done=100", done: true},
	} {
		b.Run(c.name, func(b *testing.B) {
			tmp := b.TempDir()
			state := filepath.Join(tmp, "state")
			dest := filepath.Join(tmp, "downloads")
			for _, d := range []string{dest, filepath.Join(tmp, "home"), filepath.Join(tmp, "run")} {
				if err := os.MkdirAll(d, 0o700); err != nil {
					b.Fatal(err)
				}
			}
			q, err := queue.Open(state)
			if err != nil {
				b.Fatal(err)
			}
			// A port nobody listens on: a tracker that refuses, a mirror
			// that refuses.
			l, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				b.Fatal(err)
			}
			closed := l.Addr().String()
			l.Close()
			add := func(source string, doc *metalink.Document) int64 {
				id, err := q.Add(queue.NewJob{Source: source, Dest: dest, Doc: doc})
				if err != nil {
					q.Close()
					b.Fatal(err)
				}
				return id
			}
			if err := q.UpdateSettings(func(st *queue.Settings) { st.Torrent = queue.TorrentSettings{SeedRatio: 1000, Discovery: false} }); err != nil {
				b.Fatal(err)
			}
			if c.seed {
				dir := dest
				if c.peer {
					dir = b.TempDir()
				}
				mi := torrenttest.Make(b, dir, "seed.bin", 256<<10, []torrenttest.File{{Data: mirrortest.Bytes(48<<20, 41)}})
				mi.Announce = "http://" + closed + "/announce"
				tf := torrenttest.WriteFile(b, mi, "seed.torrent")
				spec, doc := torrentDoc(b, tf)
				id := add(tf, doc)
				if c.peer {
					spec.Peers = []string{torrenttest.Seed(b, dir, mi)}
					if err := q.SetTorrentSpec(id, spec); err != nil {
						b.Fatal(err)
					}
				}
			}
			if c.wait {
				src := "http://" + closed + "/waiting.bin"
				add(src, &metalink.Document{Version: 4, Files: []metalink.File{{Name: "waiting.bin", Size: 1 << 20, URLs: []metalink.URL{{URL: src, Priority: 1}}}}})
			}
			if c.done {
				for i := range 100 {
					name := fmt.Sprintf("done-%03d.bin", i)
					src := "http://" + closed + "/" + name
					id := add(src, &metalink.Document{Version: 4, Files: []metalink.File{{Name: name, Size: 1 << 20, URLs: []metalink.URL{{URL: src, Priority: 1}}}}})
					if _, err := q.Finish(id); err != nil {
						b.Fatal(err)
					}
				}
			}
			q.Close()

			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			env := windowEnv(display, tmp, state)
			var out syncBuffer
			cmd := startWindow(ctx, b, bin, env, &out)
			// As wanted: the torrent checked and seeding (done), the
			// download waiting for its next try.
			for end := time.Now().Add(2 * time.Minute); ; time.Sleep(500 * time.Millisecond) {
				list := exec.CommandContext(ctx, bin, "queue", "--state", state, "list", "--json")
				list.Env = env
				raw, _ := list.Output()
				var jobs []queueJob
				_ = json.Unmarshal(raw, &jobs)
				seeding, waiting := !c.seed, !c.wait
				for _, j := range jobs {
					seeding = seeding || j.Name == "seed.bin" && j.State == "done"
					waiting = waiting || j.Name == "waiting.bin" && j.NextTry != nil
				}
				if seeding && waiting {
					break
				}
				if time.Now().After(end) {
					b.Fatalf("the queue never got as wanted: %s\n%s", raw, out.String())
				}
			}
			if c.pick {
				xdo := xdoRunner(ctx, b, xdotool, env, &out)
				wid := strings.Fields(xdo("search", "--sync", "--name", "^Braid$"))[0]
				xdo("windowfocus", "--sync", wid)
				xdo("mousemove", "--window", wid, "260", "147") // the first row
				xdo("click", "1")
				xdo("mousemove", "1200", "780") // off the window: nothing hovered
			}
			time.Sleep(5 * time.Second) // checks, announces and the first tries settled
			pid := cmd.Process.Pid
			var used, wall time.Duration
			for b.Loop() {
				c0, t0 := cpuTime(b, pid), time.Now()
				time.Sleep(idleSpan)
				wall += time.Since(t0)
				used += cpuTime(b, pid) - c0
			}
			b.ReportMetric(100*used.Seconds()/wall.Seconds(), "%cpu")
		})
	}
}
