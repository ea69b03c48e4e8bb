package torrenttest

import (
	"net"
	"testing"

	"github.com/anacrolix/torrent"
	"github.com/anacrolix/torrent/metainfo"
)

// Leech starts an anacrolix client on 127.0.0.1 that downloads mi (its
// web seeds left out) from the one peer at addr, into a new folder, and
// returns that folder and a channel closed once every piece is there and
// verified. The client is closed by t.Cleanup.
func Leech(t testing.TB, mi *metainfo.MetaInfo, addr string) (string, <-chan struct{}) {
	t.Helper()
	ta, err := net.ResolveTCPAddr("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	bare := *mi
	bare.UrlList = nil // only the peer has the data
	dir := t.TempDir()
	_, tt := start(t, dir, &bare, false)
	// Trusted: a loopback peer is not banned for one bad piece.
	tt.AddPeers([]torrent.PeerInfo{{Addr: ta, Trusted: true}})
	tt.DownloadAll()
	return dir, tt.Complete().On()
}
