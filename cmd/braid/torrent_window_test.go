//go:build !headless

package main

import (
	"fmt"
	"path/filepath"
	"testing"

	"braid/engine/mirrortest"
	"braid/engine/torrent/torrenttest"
	"braid/queue"
)

// TestTorrentWindowScreenshot starts the real binary in a real window on
// its own Xvfb display, on a magnet link whose metadata and pieces come
// from a loopback seeder (x.pe), and checks the screenshot it takes of the
// torrent's details: peers, ratio and the piece map coloured by source. BRAID_UPDATE_SCREENSHOT=1 writes
// it to docs/torrent_details.png, the one the README shows.
func TestTorrentWindowScreenshot(t *testing.T) {
	t.Parallel()
	tmp, bin, display := realWindow(t)

	const name = "braid-demo-1.0-amd64.iso"
	data := mirrortest.Bytes(32<<20, 35)
	src := filepath.Join(tmp, "seed")
	mi := torrenttest.Make(t, src, name, 256<<10, []torrenttest.File{{Data: data}})
	peer := torrenttest.Seed(t, src, mi)
	magnet := fmt.Sprintf("magnet:?xt=urn:btih:%s&dn=%s&x.pe=%s", mi.HashInfoBytes().HexString(), name, peer)

	// The queue's settings: peers only from the link, and a speed limit
	// that keeps the download under way long enough to be seen.
	state := filepath.Join(tmp, "state")
	q, err := queue.Open(state)
	if err != nil {
		t.Fatal(err)
	}
	err = q.UpdateSettings(func(st *queue.Settings) { st.Torrent = queue.TorrentSettings{SeedRatio: 1, Discovery: false} })
	if err == nil {
		err = q.UpdateSettings(func(s *queue.Settings) { s.SpeedLimit = 2 << 20 })
	}
	q.Close()
	if err != nil {
		t.Fatal(err)
	}

	windowScreenshot(t, tmp, bin, display, "4s", state, magnet)
	keepScreenshot(t, tmp, "torrent_details.png")
}
