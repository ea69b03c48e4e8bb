package torrent

import (
	"bytes"
	"context"
	"errors"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"

	"braid/engine/netconf"
	"braid/engine/netconf/netconftest"
	"braid/engine/torrent/torrenttest"
)

// TestWebSeedThroughProxy downloads a torrent whose only source is its web
// seed through tinyproxy, with every connection that leaves the Network
// other than to the proxy refused (so the bytes can only have come
// through it), and fails through a proxy that is not there.
func TestWebSeedThroughProxy(t *testing.T) {
	t.Parallel()
	tiny := netconftest.Tinyproxy(t, "", "")
	src := t.TempDir()
	data := make([]byte, 3<<20+99)
	for i := range data {
		data[i] = byte(i*7 + i>>11)
	}
	mi := torrenttest.Make(t, src, "ws.bin", 256<<10, []torrenttest.File{{Data: data}}, torrenttest.ServeDir(t, src)+"/ws.bin")

	run := func(t *testing.T, proxy string, wait time.Duration) (string, error) {
		u, err := url.Parse(proxy)
		if err != nil {
			t.Fatal(err)
		}
		n, err := netconf.NewNetwork(netconf.Proxy{Mode: netconf.ProxyManual, URL: proxy, DirectDial: netconftest.OnlyTo(u.Host)})
		if err != nil {
			t.Fatal(err)
		}
		dest := t.TempDir()
		c := NewClient(Config{ListenHost: "127.0.0.1", Logger: discard, Network: n})
		defer c.Close()
		ctx, cancel := context.WithTimeout(context.Background(), wait)
		defer cancel()
		j, err := c.Start(ctx, &Request{Dir: dest, Spec: specOf(t, mi)})
		if err != nil {
			return dest, err
		}
		return dest, j.Err()
	}

	t.Run("through tinyproxy", func(t *testing.T) {
		dest, err := run(t, tiny, 2*time.Minute)
		if err != nil {
			t.Fatalf("through %s: %v", tiny, err)
		}
		got, err := os.ReadFile(filepath.Join(dest, "ws.bin"))
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("ws.bin: %v", err)
		}
	})
	t.Run("through a proxy that is not there", func(t *testing.T) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		gone := "http://" + ln.Addr().String()
		ln.Close()
		dest, err := run(t, gone, 8*time.Second)
		if err == nil {
			t.Fatal("the torrent downloaded without its proxy")
		}
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Logf("ended with: %v", err)
		}
		if _, err := os.Stat(filepath.Join(dest, "ws.bin")); err == nil {
			t.Error("ws.bin landed without its proxy")
		}
	})
}

// TestPeersThroughProxy downloads a torrent from a seeder over TCP through
// tinyproxy's CONNECT, with every direct connection refused, and finds no
// peer through a proxy that is not there.
func TestPeersThroughProxy(t *testing.T) {
	t.Parallel()
	tiny := netconftest.Tinyproxy(t, "", "")
	src := t.TempDir()
	data := make([]byte, 2<<20+5)
	for i := range data {
		data[i] = byte(i*13 + i>>9)
	}
	mi := torrenttest.Make(t, src, "p.bin", 256<<10, []torrenttest.File{{Data: data}})
	seeder := torrenttest.Seed(t, src, mi)
	run := func(t *testing.T, proxy string, wait time.Duration) (string, error) {
		u, err := url.Parse(proxy)
		if err != nil {
			t.Fatal(err)
		}
		n, err := netconf.NewNetwork(netconf.Proxy{Mode: netconf.ProxyManual, URL: proxy, DirectDial: netconftest.OnlyTo(u.Host)})
		if err != nil {
			t.Fatal(err)
		}
		dest := t.TempDir()
		c := NewClient(Config{ListenHost: "127.0.0.1", Logger: discard, Network: n})
		defer c.Close()
		ctx, cancel := context.WithTimeout(context.Background(), wait)
		defer cancel()
		spec := specOf(t, mi)
		spec.Peers = []string{seeder}
		j, err := c.Start(ctx, &Request{Dir: dest, Spec: spec})
		if err != nil {
			return dest, err
		}
		return dest, j.Err()
	}
	dest, err := run(t, tiny, 2*time.Minute)
	if err != nil {
		t.Fatalf("through %s: %v", tiny, err)
	}
	if got, err := os.ReadFile(filepath.Join(dest, "p.bin")); err != nil || !bytes.Equal(got, data) {
		t.Fatalf("p.bin: %v", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gone := "http://" + ln.Addr().String()
	ln.Close()
	if _, err := run(t, gone, 6*time.Second); err == nil {
		t.Fatal("the torrent downloaded from its peer without the proxy")
	}
}
