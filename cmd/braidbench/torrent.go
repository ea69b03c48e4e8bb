package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/anacrolix/torrent"
	"github.com/anacrolix/torrent/bencode"
	"github.com/anacrolix/torrent/metainfo"
	"github.com/anacrolix/torrent/storage"

	"braid/bench/mirror"
)

// The torrent scenario: one file from a loopback swarm of three anacrolix
// seeders (in this process, on their own ports) found through opentracker
// (Debian's, started here on 127.0.0.1), plus the file's web seed, an
// unlimited mirror on 127.0.0.5. braid and aria2c get the same .torrent,
// one after the other; neither seeds afterwards.

// torrentPieceLength is the scenario's piece length, a common choice for
// files of a few hundred MiB.
const torrentPieceLength = 256 << 10

// torrentMaxRSS is the most resident memory braid may use for the
// torrent: its storage holds at most 2 MiB of unfinished pieces and
// writes the rest through to disk, so the peak (about 35-55 MiB for
// 256 MiB in November 2026) does not grow with the file.
const torrentMaxRSS = 150 << 20

// torrentCPULimit is the most CPU braid may spend on the swarm, as a
// multiple of aria2c's. Braid's torrents run on anacrolix/torrent, whose
// per-chunk work aria2c does not have: it hands each 16 KiB block to the
// storage on its own, reads every piece back to hash it (aria2c hashes as
// the blocks arrive), and keeps its request order in a heap it re-sorts
// per block. Braid's storage holds the pieces in flight in memory (see
// engine/torrent/piecebuf.go), which saves a web seed's download about a
// quarter of its CPU; from peers, the library has more pieces in flight than that
// memory holds, and writing and reading back were 20 % and 5 % of braid's
// CPU here, the request heap 9 %, sha-1 itself 19 % (November 2026):
// braid 1.3-1.55× aria2c's CPU while it finished in a third of aria2c's
// time. We do not fork the library; 2× is the bound.
const torrentCPULimit = 2

func runTorrentScenario(ctx context.Context, dir string, size int64, braid, aria string, runs int, out io.Writer) error {
	tracker, err := exec.LookPath("opentracker")
	if err != nil {
		return fmt.Errorf("the torrent scenario needs opentracker (Debian: opentracker): %w", err)
	}
	c := mirror.NewContent(size)
	seedDir := filepath.Join(dir, "torrent-seed")
	if err := writeContent(filepath.Join(seedDir, "file.bin"), c); err != nil {
		return err
	}
	defer os.RemoveAll(seedDir)
	web, err := mirror.Start(c, "127.0.0.5", mirror.Behaviour{})
	if err != nil {
		return err
	}
	defer web.Close()

	const port = 16969
	announce := fmt.Sprintf("http://127.0.0.1:%d/announce", port)
	tf := filepath.Join(dir, "file.torrent")
	mi, err := writeTorrent(tf, filepath.Join(seedDir, "file.bin"), announce, web.URL())
	if err != nil {
		return err
	}
	defer os.Remove(tf)

	stopTracker, err := startTracker(ctx, tracker, dir, port, mi.HashInfoBytes())
	if err != nil {
		return err
	}
	defer stopTracker()
	for i := range 3 {
		cl, err := startSeeder(ctx, seedDir, mi)
		if err != nil {
			return fmt.Errorf("seeder %d: %w", i+1, err)
		}
		defer cl.Close()
	}

	res := result{name: "torrent", size: size, maxRSS: torrentMaxRSS, cpuLimit: torrentCPULimit}
	rn := benchRun{
		braidArgs: braidArgs(tf),
		ariaArgs: []string{"--seed-time=0", "--enable-dht=false", "--enable-dht6=false",
			"--bt-enable-lpd=false", "--enable-peer-exchange=false", "--summary-interval=0", tf},
		modes: []ariaMode{{name: "bittorrent"}},
		check: func(out string) error { return checkFile(filepath.Join(out, "file.bin"), size) },
	}
	if err := measure(ctx, dir, &res, rn, braid, aria, runs); err != nil {
		return err
	}
	res.print(out)
	return nil
}

// braidArgs is how braid is given the torrent: without the DHT, as
// aria2c (on a machine with loopback only, the DHT's bootstrap costs
// braid seconds of CPU). BRAID_BENCH_TORRENT_ARGS (space separated, before
// the .torrent) replaces them, to compare settings.
func braidArgs(tf string) []string {
	args := "--bt-dht=false"
	if v, ok := os.LookupEnv("BRAID_BENCH_TORRENT_ARGS"); ok {
		args = v
	}
	return append(strings.Fields(args), tf)
}

// writeContent writes c to path.
func writeContent(path string, c *mirror.Content) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	buf := make([]byte, 1<<20)
	for off := int64(0); off < c.Size; off += int64(len(buf)) {
		p := buf[:min(int64(len(buf)), c.Size-off)]
		c.Fill(p, off)
		if _, err := f.Write(p); err != nil {
			f.Close()
			return err
		}
	}
	return f.Close()
}

// startTracker runs opentracker on 127.0.0.1:port for the one info hash,
// chrooted (as nobody) into a folder of its own, and returns how to stop it.
func startTracker(ctx context.Context, bin, dir string, port int, ih metainfo.Hash) (func(), error) {
	root := filepath.Join(dir, "tracker")
	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, err
	}
	if err := os.Chmod(root, 0o755); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(root, "whitelist"), []byte(ih.HexString()+"\n"), 0o644); err != nil {
		return nil, err
	}
	p := fmt.Sprint(port)
	cmd := exec.CommandContext(ctx, bin, "-i", "127.0.0.1", "-p", p, "-P", p, "-d", root, "-u", "nobody", "-w", "/whitelist")
	if childOutput {
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return func() {
		cmd.Process.Kill()
		cmd.Wait()
		os.RemoveAll(root)
	}, nil
}

// startSeeder starts an anacrolix client that seeds mi from dir and
// announces to its tracker once it has checked the data.
func startSeeder(ctx context.Context, dir string, mi *metainfo.MetaInfo) (*torrent.Client, error) {
	cfg := torrent.NewDefaultClientConfig()
	cfg.ListenPort = 0
	cfg.NoDHT, cfg.NoDefaultPortForwarding, cfg.DisablePEX = true, true, true
	cfg.DisableIPv6 = true
	cfg.Seed = true
	cfg.Slogger = slog.New(slog.DiscardHandler)
	// anacrolix v1.59.1 deadlocks uploads with its default (see
	// engine/torrent.MaxPeerRequestData).
	cfg.MaxAllocPeerRequestDataPerConn = 1024 * 16 << 10
	// Its connection writer can miss a wake-up and hold a served chunk
	// until the keep-alive timer (torrenttest.Seed says how); with the
	// library's minute one such miss would decide a run, for braid or
	// aria2c alike. Braid's own client wakes every 5 s.
	cfg.KeepAliveTimeout = 5 * time.Second
	cfg.DefaultStorage = storage.NewFileOpts(storage.NewFileClientOpts{
		ClientBaseDir: dir, PieceCompletion: storage.NewMapPieceCompletion(),
	})
	cl, err := torrent.NewClient(cfg)
	if err != nil {
		return nil, err
	}
	t, err := cl.AddTorrent(mi)
	if err != nil {
		cl.Close()
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	if err := t.VerifyDataContext(ctx); err != nil {
		cl.Close()
		return nil, err
	}
	select {
	case <-t.Complete().On():
	case <-ctx.Done():
		cl.Close()
		return nil, fmt.Errorf("the seeder's data did not verify: %w", ctx.Err())
	}
	return cl, nil
}

// runWebSeedScenario: a torrent whose only source is its web seed, an
// unlimited mirror on 127.0.0.5 (BEP 19 url-list; no tracker, no peer).
func runWebSeedScenario(ctx context.Context, dir string, size int64, braid, aria string, runs int, out io.Writer) error {
	c := mirror.NewContent(size)
	seedDir := filepath.Join(dir, "webseed-src")
	if err := writeContent(filepath.Join(seedDir, "file.bin"), c); err != nil {
		return err
	}
	defer os.RemoveAll(seedDir)
	web, err := mirror.Start(c, "127.0.0.5", mirror.Behaviour{})
	if err != nil {
		return err
	}
	defer web.Close()
	tf := filepath.Join(dir, "webseed.torrent")
	if _, err := writeTorrent(tf, filepath.Join(seedDir, "file.bin"), "", web.URL()); err != nil {
		return err
	}
	defer os.Remove(tf)
	res := result{name: "webseed", size: size, maxRSS: torrentMaxRSS, cpuLimit: 1}
	rn := benchRun{
		braidArgs: braidArgs(tf),
		ariaArgs: []string{"--seed-time=0", "--enable-dht=false", "--enable-dht6=false",
			"--bt-enable-lpd=false", "--enable-peer-exchange=false", "--summary-interval=0", tf},
		modes: []ariaMode{{name: "bittorrent"}},
		check: func(out string) error { return checkFile(filepath.Join(out, "file.bin"), size) },
	}
	if err := measure(ctx, dir, &res, rn, braid, aria, runs); err != nil {
		return err
	}
	res.print(out)
	return nil
}

// writeTorrent writes to path the .torrent of one file, announced to
// announce ("" for none) with the given web seeds, and returns it.
func writeTorrent(path, file, announce string, webSeeds ...string) (*metainfo.MetaInfo, error) {
	info := metainfo.Info{PieceLength: torrentPieceLength}
	if err := info.BuildFromFilePath(file); err != nil {
		return nil, err
	}
	mi := &metainfo.MetaInfo{Announce: announce, UrlList: webSeeds}
	var err error
	if mi.InfoBytes, err = bencode.Marshal(info); err != nil {
		return nil, err
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := mi.Write(f); err != nil {
		f.Close()
		return nil, err
	}
	return mi, f.Close()
}
