package torrenttest

import (
	"bufio"
	"context"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/anacrolix/torrent/bencode"
	pp "github.com/anacrolix/torrent/peer_protocol"
)

// MetadataLiar listens on loopback as a peer that answers any torrent's
// handshake and sends info as its metadata (BEP 9), whatever the info
// hash asked for. It returns its address; it stops with the test.
func MetadataLiar(t testing.TB, info []byte) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var conns []net.Conn
	closed := false
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		closed = true
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, conn)
			if closed {
				conn.Close() // accepted as the test ended
			}
			mu.Unlock()
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer conn.Close()
				serveLies(conn, info)
			}()
		}
	}()
	return ln.Addr().String()
}

// serveLies speaks to one connection until it fails: a plain handshake
// (an encrypted one fails here, and the client tries again in plain), the
// extended handshake offering ut_metadata, and info for every metadata
// piece asked for.
func serveLies(conn net.Conn, info []byte) {
	const ourMetadataID = 3
	conn.SetDeadline(time.Now().Add(2 * time.Minute))
	var id [20]byte
	copy(id[:], "-LIAR0-0123456789012")
	if _, err := pp.Handshake(context.Background(), conn, nil, id, pp.NewPeerExtensionBytes(pp.ExtensionBitLtep)); err != nil {
		return
	}
	send := func(m pp.Message) error {
		_, err := conn.Write(m.MustMarshalBinary())
		return err
	}
	hs := pp.ExtendedHandshakeMessage{M: map[pp.ExtensionName]pp.ExtensionNumber{pp.ExtensionNameMetadata: ourMetadataID}, MetadataSize: len(info)}
	if send(pp.Message{Type: pp.Extended, ExtendedID: pp.HandshakeExtendedID, ExtendedPayload: bencode.MustMarshal(hs)}) != nil {
		return
	}
	dec := pp.Decoder{
		R:         bufio.NewReader(conn),
		Pool:      &sync.Pool{New: func() any { b := make([]byte, 1<<14); return &b }},
		MaxLength: 1 << 20,
	}
	theirs := pp.ExtensionNumber(0)
	for {
		var m pp.Message
		if dec.Decode(&m) != nil {
			return
		}
		if m.Type != pp.Extended {
			continue
		}
		switch m.ExtendedID {
		case pp.HandshakeExtendedID:
			var their pp.ExtendedHandshakeMessage
			if bencode.Unmarshal(m.ExtendedPayload, &their) == nil {
				theirs = their.M[pp.ExtensionNameMetadata]
			}
		case ourMetadataID:
			var req pp.ExtendedMetadataRequestMsg
			if bencode.Unmarshal(m.ExtendedPayload, &req) != nil || req.Type != pp.RequestMetadataExtensionMsgType || theirs == 0 {
				continue
			}
			start := req.Piece << 14
			if start >= len(info) {
				continue
			}
			end := min(len(info), start+1<<14)
			head := bencode.MustMarshal(pp.ExtendedMetadataRequestMsg{Piece: req.Piece, TotalSize: len(info), Type: pp.DataMetadataExtensionMsgType})
			if send(pp.Message{Type: pp.Extended, ExtendedID: theirs, ExtendedPayload: append(head, info[start:end]...)}) != nil {
				return
			}
		}
	}
}
