package torrent

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/anacrolix/dht/v2"

	"braid/engine/torrent/torrenttest"
)

// BenchmarkSwarm downloads a 64 MiB torrent from two loopback anacrolix
// seeders and a web seed (an http.FileServer), into a fresh folder each
// time. For the full comparison with aria2c see cmd/braidbench's torrent
// scenario.
func BenchmarkSwarm(b *testing.B) {
	src := b.TempDir()
	data := randomBytes(b, 64<<20)
	mi := torrenttest.Make(b, src, "swarm.bin", 256<<10, []torrenttest.File{{Data: data}}, torrenttest.ServeDir(b, src)+"/swarm.bin")
	peers := []string{torrenttest.Seed(b, src, mi), torrenttest.Seed(b, src, mi)}
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for range b.N {
		dest := b.TempDir()
		spec := specOf(b, mi)
		spec.Peers = peers
		c := NewClient(Config{ListenHost: "127.0.0.1", Logger: discard})
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		j, err := c.Start(ctx, &Request{Dir: dest, Spec: spec})
		if err != nil {
			b.Fatal(err)
		}
		if err := j.Err(); err != nil {
			b.Fatal(err)
		}
		cancel()
		c.Close()
		b.StopTimer()
		os.RemoveAll(filepath.Join(dest, "swarm.bin"))
		b.StartTimer()
	}
}

// BenchmarkIdleSeed seeds a finished 64 MiB torrent that no peer asks
// for, with the DHT on and reaching nobody (as offline); each op is one
// second of it. cpu-s/op is the process's CPU time (user + system) per
// second of seeding: under 0.01 is under 1 % of a core. braidbench's idle
// scenario measures the same of braid get.
func BenchmarkIdleSeed(b *testing.B) {
	dir := b.TempDir()
	mi := torrenttest.Make(b, dir, "idle.bin", 256<<10, []torrenttest.File{{Data: randomBytes(b, 64<<20)}})
	c := NewClient(Config{ListenHost: "127.0.0.1", Logger: discard, DHT: true, dhtNodes: func() ([]dht.Addr, error) {
		return nil, errors.New("offline")
	}})
	defer c.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	j, err := c.Start(ctx, &Request{Dir: dir, Spec: specOf(b, mi), SeedTime: time.Hour})
	if err != nil {
		b.Fatal(err)
	}
	select {
	case <-j.Complete():
	case <-time.After(2 * time.Minute):
		b.Fatal("the torrent did not verify")
	}
	if s := j.Snapshot(); s.Phase != PhaseSeeding {
		b.Fatalf("phase %v, want seeding", s.Phase)
	}
	time.Sleep(time.Second) // let the check's aftermath settle
	b.ResetTimer()
	before := cpuTime(b)
	for range b.N {
		time.Sleep(time.Second)
	}
	b.ReportMetric((cpuTime(b)-before).Seconds()/float64(b.N), "cpu-s/op")
}

// BenchmarkWebSeedOnly downloads a 16 MiB torrent whose only source is
// its web seed (an http.FileServer on loopback), into a fresh folder each
// time: the library's web seed timer would hold it back up to 5 s.
func BenchmarkWebSeedOnly(b *testing.B) {
	src := b.TempDir()
	data := randomBytes(b, 16<<20)
	mi := torrenttest.Make(b, src, "ws.bin", 256<<10, []torrenttest.File{{Data: data}}, torrenttest.ServeDir(b, src)+"/ws.bin")
	b.SetBytes(int64(len(data)))
	for range b.N {
		dest := b.TempDir()
		c := NewClient(Config{ListenHost: "127.0.0.1", Logger: discard})
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		j, err := c.Start(ctx, &Request{Dir: dest, Spec: specOf(b, mi)})
		if err != nil {
			b.Fatal(err)
		}
		if err := j.Err(); err != nil {
			b.Fatal(err)
		}
		cancel()
		c.Close()
	}
}
