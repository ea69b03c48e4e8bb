package torrent

import (
	"github.com/anacrolix/torrent"
	pp "github.com/anacrolix/torrent/peer_protocol"
)

// fitRequestQueue keeps one request below the queue a peer announces
// (BEP 10 "reqq"). Transmission (3.00 and since, libtransmission
// peer-msgs.c peerMadeRequest) announces 512 but rejects a request that
// would make its queue reach 512, so it holds 511. anacrolix v1.59.1
// sends requests in batches that grow to the announced size and sends no
// more until a batch has drained (PeerConn.isLowOnRequests, peerconn.go
// :1842); the one request Transmission rejects never drains, and on a
// reject the library adds no request until the peer unchokes it again
// (requesting.go:374), which a seeder that never choked does not do. The
// download stalled at 1023 chunks (1+2+...+512, less the rejected one):
// 16,744,448 bytes. The library calls this with the peer's extended
// handshake before it reads reqq from it (peerconn.go:1012).
func fitRequestQueue(_ *torrent.PeerConn, h *pp.ExtendedHandshakeMessage) {
	if h.Reqq > 1 {
		h.Reqq--
	}
}
