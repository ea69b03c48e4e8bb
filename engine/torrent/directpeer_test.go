package torrent

import (
	"context"
	"io"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/anacrolix/torrent/metainfo"
)

// TestDirectPeerTriedAgain gives a torrent one direct peer (x.pe in a
// magnet link) that refuses the first connections, as a peer that is not
// up yet, or a handshake that times out on a loaded machine, would: the
// download still comes from it once it answers. The library dials a peer
// it was given once and forgets it after a failure; the job gives it again
// while the torrent has no connection.
func TestDirectPeerTriedAgain(t *testing.T) {
	t.Parallel()
	src := t.TempDir()
	data := randomBytes(t, 20*testPieceLen+77)
	mi := makeTorrent(t, src, "late.bin", []testFile{{Path: "", Data: data}})
	seed := seeder(t, src, mi)

	// The gate closes every connection for its first 2 s, then passes
	// them on to the seeder.
	open := time.Now().Add(2 * time.Second)
	var refused atomic.Int32
	addr, _ := gate(t, func(c net.Conn, _ int32) {
		if time.Now().Before(open) {
			refused.Add(1)
			c.Close()
			return
		}
		pass(c, seed)
	})
	dest, err := throughGate(t, newTestClient(t), mi, addr, time.Minute)
	if err != nil {
		t.Fatalf("the download through a peer that answered late: %v (refused %d connections first)", err, refused.Load())
	}
	if refused.Load() == 0 {
		t.Fatal("the gate refused no connection: the test tried nothing")
	}
	sameFile(t, dest, "late.bin", data)
}

// gate listens on loopback in front of a test's peer and hands each
// connection it takes to serve, in a goroutine of its own, with its
// number (1 for the first). It returns its address and the count.
func gate(t *testing.T, serve func(c net.Conn, n int32)) (addr string, conns *atomic.Int32) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	conns = new(atomic.Int32)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go serve(c, conns.Add(1))
		}
	}()
	return ln.Addr().String(), conns
}

// throughGate downloads mi with c from the one direct peer at addr into
// a new folder, waiting at most within, and returns the folder and how
// the download ended.
func throughGate(t *testing.T, c *Client, mi *metainfo.MetaInfo, addr string, within time.Duration) (dest string, err error) {
	t.Helper()
	spec := specOf(t, mi)
	spec.Peers = []string{addr}
	dest = t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), within)
	defer cancel()
	j, err := c.Start(ctx, &Request{Dir: dest, Spec: spec})
	if err != nil {
		t.Fatal(err)
	}
	return dest, j.Err()
}

// pass copies bytes both ways between c and the server at addr until
// either side closes.
func pass(c net.Conn, addr string) {
	passWith(c, addr, func(c, s net.Conn) { _, _ = io.Copy(c, s) })
}

// passWith is pass with down doing the copy from the server s to c.
func passWith(c net.Conn, addr string, down func(c, s net.Conn)) {
	defer c.Close()
	s, err := net.Dial("tcp", addr)
	if err != nil {
		return
	}
	defer s.Close()
	done := make(chan struct{}, 2)
	go func() { _, _ = io.Copy(s, c); done <- struct{}{} }()
	go func() { down(c, s); done <- struct{}{} }()
	<-done
}
