package torrent

import (
	"context"
	"errors"
	"io"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/anacrolix/dht/v2/krpc"
	"github.com/anacrolix/torrent"

	"braid/engine/torrent/torrenttest"
)

// failingDHT is a DHT server whose every announce fails at once, as the
// library's does while it knows no node (offline).
type failingDHT struct{ announces atomic.Int32 }

func (*failingDHT) Stats() any                  { return nil }
func (*failingDHT) ID() (id [20]byte)           { return id }
func (*failingDHT) Addr() net.Addr              { return &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 1} }
func (*failingDHT) AddNode(krpc.NodeInfo) error { return nil }
func (*failingDHT) Ping(*net.UDPAddr)           {}
func (*failingDHT) WriteStatus(io.Writer)       {}
func (d *failingDHT) Announce([20]byte, int, bool) (torrent.DhtAnnounce, error) {
	d.announces.Add(1)
	return nil, errors.New("no initial nodes")
}

// A failed announce is not tried again at once: the library's own
// announcer did, and spun a core while offline. Within a second (a fifth
// of the first back-off) there is one announce, not thousands.
func TestDHTAnnounceBacksOff(t *testing.T) {
	t.Parallel()
	mi := makeTorrent(t, t.TempDir(), "a.bin", []testFile{{Data: randomBytes(t, testPieceLen)}})
	cfg := torrent.NewDefaultClientConfig()
	cfg.ListenHost = func(string) string { return "127.0.0.1" }
	cfg.ListenPort = 0
	cfg.NoDHT, cfg.DisableTrackers, cfg.NoDefaultPortForwarding, cfg.DisableIPv6 = true, true, true, true
	cfg.Slogger = discard
	cl, err := torrenttest.NewClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	tt, err := cl.AddTorrent(mi)
	if err != nil {
		t.Fatal(err)
	}
	var d failingDHT
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	announceTo(ctx, tt, &d)
	if n := d.announces.Load(); n != 1 {
		t.Fatalf("%d announces in a second after failures, want 1", n)
	}
}

// The library's web seed timer, which nudgeWebSeeds fires, is where
// webseed.go expects it: a library that moved it would leave web seeds
// waiting up to 5 s again.
func TestWebSeedTimerFound(t *testing.T) {
	t.Parallel()
	c := newTestClient(t)
	cl, err := c.client()
	if err != nil {
		t.Fatal(err)
	}
	if webseedTimer(cl) == nil {
		t.Fatal("no webseedRequestTimer in torrent.Client")
	}
}
