package torrent

import (
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

	const passed = 100 << 10 // the first connection's bytes from the seeder
	addr, conns := gate(t, func(c net.Conn, n int32) {
		if n == 1 {
			passUntil(c, seed, passed)
			return
		}
		pass(c, seed)
	})
	// Without the idle watch the download waits for ever; with it, it
	// ends about testIdleDrop and one redial after the hold.
	start := time.Now()
	dest, err := throughGate(t, idleClient(t), mi, addr, 2*testIdleDrop+redialEvery+20*time.Second)
	if err != nil {
		t.Fatalf("the download through a peer that held its requests: %v after %s (%d connections)", err, time.Since(start).Round(time.Second), conns.Load())
	}
	if n := conns.Load(); n < 2 {
		t.Fatalf("%d connection to the peer: the hold was never met, the test tried nothing", n)
	}
	sameFile(t, dest, "held.bin", data)
	t.Logf("done after %s over %d connections", time.Since(start).Round(time.Second), conns.Load())
}

// TestSlowPeerKept: a peer that sends, however slowly, is not closed as
// idle, though at 300 bytes a second no chunk of 16 KiB arrives within
// the stall's wait. The gate in front of the seeder passes its bytes at
// that pace for three waits, then at full speed; the download ends over
// the one connection.
func TestSlowPeerKept(t *testing.T) {
	t.Parallel()
	src := t.TempDir()
	data := randomBytes(t, 20*testPieceLen+77)
	mi := makeTorrent(t, src, "slow.bin", []testFile{{Path: "", Data: data}})
	seed := seeder(t, src, mi)

	slowUntil := time.Now().Add(3 * testIdleDrop)
	addr, conns := gate(t, func(c net.Conn, _ int32) { passSlowly(c, seed, 300, slowUntil) })
	var closed atomic.Int32
	c := NewClient(Config{ListenHost: "127.0.0.1", Logger: discard, idleDrop: testIdleDrop, idleClosed: func() { closed.Add(1) }})
	t.Cleanup(func() { c.Close() })
	dest, err := throughGate(t, c, mi, addr, 3*testIdleDrop+redialEvery+20*time.Second)
	if err != nil {
		t.Fatalf("the download through a slow peer: %v (%d connections)", err, conns.Load())
	}
	if time.Now().Before(slowUntil) {
		t.Fatal("the download ended while the gate was slow: the test tried nothing")
	}
	// Counted where the watch closes them: on a loaded machine a slow
	// handshake can bring a second dial that is no idle close.
	if n := closed.Load(); n != 0 {
		t.Fatalf("the slow peer was closed as idle while it sent (closes: %d, connections: %d)", n, conns.Load())
	}
	sameFile(t, dest, "slow.bin", data)
}

// passSlowly is pass, except that until the server's bytes go to c at
// about rate bytes a second.
func passSlowly(c net.Conn, addr string, rate int, until time.Time) {
	passWith(c, addr, func(c, s net.Conn) {
		buf := make([]byte, rate/10)
		for time.Now().Before(until) {
			n, err := s.Read(buf)
			if n > 0 {
				if _, werr := c.Write(buf[:n]); werr != nil {
					return
				}
			}
			if err != nil {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
		_, _ = io.Copy(c, s)
	})
}

// testIdleDrop is how long the tests' torrents wait in a stall before
// they close idle connections (idleDrop, 20 s, for users).
const testIdleDrop = 3 * time.Second

// idleClient is newTestClient with a stall met after testIdleDrop.
func idleClient(t *testing.T) *Client {
	t.Helper()
	c := NewClient(Config{ListenHost: "127.0.0.1", Logger: discard, idleDrop: testIdleDrop})
	t.Cleanup(func() { c.Close() })
	return c
}

// passUntil is pass, except that after limit bytes from the server it
// passes nothing more to c, while it keeps both connections open and
// the client's bytes flowing: a peer that stops serving.
func passUntil(c net.Conn, addr string, limit int64) {
	passWith(c, addr, func(c, s net.Conn) {
		_, _ = io.CopyN(c, s, limit)
		_, _ = io.Copy(io.Discard, s)
	})
}
