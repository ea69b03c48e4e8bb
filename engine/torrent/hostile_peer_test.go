package torrent

import (
	"bufio"
	"context"
	"crypto/rand"
	"fmt"
	"net"
	"sync"
	"testing"
	"time"

	pp "github.com/anacrolix/torrent/peer_protocol"

	"braid/engine/mirrortest"
	"braid/engine/torrent/torrenttest"
)

// A peer that asks a seeding Braid for chunks far longer than the 16 KiB
// every client asks for is refused, and a limit set afterwards cannot
// crash the app: the library panics when it must send a request it took
// that is longer than the upload limiter's burst, and a burst that follows
// the rate (or no limit at all, rate.Inf, under which it takes any
// length) let it take such requests. The peer here is a raw connection
// speaking the protocol; a normal leecher still gets the file afterwards.
func TestHostilePeerLongRequests(t *testing.T) {
	t.Parallel()
	const pieceLen = 4 << 20
	const askLen = 512 << 10
	src := t.TempDir()
	data := randomBytes(t, 2*pieceLen)
	m := mirrortest.New(t, data)
	mi := torrenttest.Make(t, src, "big.bin", pieceLen, []testFile{{Data: data}}, m.URL())
	c := NewClient(Config{ListenHost: "127.0.0.1", Logger: discard, UploadLimit: 10e6})
	t.Cleanup(func() { c.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	j, err := c.Start(ctx, &Request{Dir: t.TempDir(), Spec: specOf(t, mi), SeedRatio: 100})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Stop()
	select {
	case <-j.Complete():
	case <-ctx.Done():
		t.Fatal("not complete")
	}

	conn, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", c.Port()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(time.Minute))
	var id [20]byte
	rand.Read(id[:])
	ih := mi.HashInfoBytes()
	if _, err := pp.Handshake(ctx, conn, &ih, id, pp.NewPeerExtensionBytes(pp.ExtensionBitFast)); err != nil {
		t.Fatalf("handshake: %v", err)
	}
	dec := pp.Decoder{
		R:         bufio.NewReader(conn),
		Pool:      &sync.Pool{New: func() any { b := make([]byte, askLen); return &b }},
		MaxLength: 2 * askLen,
	}
	send := func(msg pp.Message) {
		t.Helper()
		if _, err := conn.Write(msg.MustMarshalBinary()); err != nil {
			t.Fatalf("send %v: %v", msg.Type, err)
		}
	}
	send(pp.Message{Type: pp.Interested})
	for unchoked := false; !unchoked; {
		var msg pp.Message
		if err := dec.Decode(&msg); err != nil {
			t.Fatalf("waiting to be unchoked: %v", err)
		}
		unchoked = msg.Type == pp.Unchoke
	}
	asked := 0
	for i := range 2 {
		for off := 0; off < pieceLen; off += askLen {
			send(pp.Message{Type: pp.Request, Index: pp.Integer(i), Begin: pp.Integer(off), Length: askLen})
			asked++
		}
	}
	// Once the seeder has taken the requests (it sends the first piece,
	// or refuses them all), the limit is lowered while the rest are
	// queued: a burst that followed the rate (1 MB at 10 MB/s) would now
	// be 128 KiB, below what was taken.
	rejected, served := 0, 0
	lowered := false
	for rejected+served < asked {
		var msg pp.Message
		if err := dec.Decode(&msg); err != nil {
			t.Fatalf("after %d rejects and %d pieces of %d requests: %v", rejected, served, asked, err)
		}
		switch msg.Type {
		case pp.Reject:
			rejected++
		case pp.Piece:
			served++
		}
		if !lowered && served > 0 {
			c.SetUploadLimit(100e3)
			lowered = true
		}
	}
	if served > 0 {
		t.Errorf("%d requests of %d bytes served, want every one refused", served, askLen)
	}

	// Braid seeds on: an ordinary leecher gets the file.
	c.SetUploadLimit(0)
	noSeeds := *mi
	noSeeds.UrlList = nil
	spec := specOf(t, &noSeeds)
	spec.Peers = []string{fmt.Sprintf("127.0.0.1:%d", c.Port())}
	lc := newTestClient(t)
	dir := t.TempDir()
	if _, err := run(t, lc, &Request{Dir: dir, Spec: spec}); err != nil {
		t.Fatalf("leecher after the hostile peer: %v", err)
	}
	sameFile(t, dir, "big.bin", data)
}
