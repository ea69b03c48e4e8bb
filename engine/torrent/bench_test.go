package torrent

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

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
