package torrent

import (
	"context"
	"io"
	"net"
	"sync/atomic"
	"testing"
	"time"
)

// TestIdlePeerDropped gives a torrent one direct peer, a real seeder
// behind a gate whose first connection stops passing the seeder's bytes
// after a few chunks and holds the connection open: the requests sent
// then are never served, as a seeder that holds a request does. The
// library has no request timeout; the job closes the idle connection,
// dials the peer again, and the download ends through the second
// connection.
func TestIdlePeerDropped(t *testing.T) {
	t.Parallel()
	src := t.TempDir()
	data := randomBytes(t, 20*testPieceLen+77)
	mi := makeTorrent(t, src, "held.bin", []testFile{{Path: "", Data: data}})
	seed := seeder(t, src, mi)

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	const passed = 100 << 10 // the first connection's bytes from the seeder
	var conns atomic.Int32
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			if conns.Add(1) == 1 {
				go passUntil(c, seed, passed)
				continue
			}
			go pass(c, seed)
		}
	}()

	spec := specOf(t, mi)
	spec.Peers = []string{ln.Addr().String()}
	dest := t.TempDir()
	// Without the idle watch the download waits for ever; with it, it
	// ends about idleDrop and one redial after the hold.
	ctx, cancel := context.WithTimeout(context.Background(), 2*idleDrop+redialEvery+10*time.Second)
	defer cancel()
	start := time.Now()
	j, err := newTestClient(t).Start(ctx, &Request{Dir: dest, Spec: spec})
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Err(); err != nil {
		t.Fatalf("the download through a peer that held its requests: %v after %s (%d connections)", err, time.Since(start).Round(time.Second), conns.Load())
	}
	if n := conns.Load(); n < 2 {
		t.Fatalf("%d connection to the peer: the hold was never met, the test tried nothing", n)
	}
	sameFile(t, dest, "held.bin", data)
	t.Logf("done after %s over %d connections", time.Since(start).Round(time.Second), conns.Load())
}

// passUntil is pass, except that after limit bytes from the server it
// passes nothing more to c, while it keeps both connections open and
// the client's bytes flowing: a peer that stops serving.
func passUntil(c net.Conn, addr string, limit int64) {
	defer c.Close()
	s, err := net.Dial("tcp", addr)
	if err != nil {
		return
	}
	defer s.Close()
	done := make(chan struct{}, 2)
	go func() { _, _ = io.Copy(s, c); done <- struct{}{} }()
	go func() {
		_, _ = io.CopyN(c, s, limit)
		_, _ = io.Copy(io.Discard, s)
		done <- struct{}{}
	}()
	<-done
}
