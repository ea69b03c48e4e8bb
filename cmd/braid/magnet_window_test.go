//go:build !headless

package main

import (
	"bytes"
	"fmt"
	"path/filepath"
	"testing"

	"braid/engine/mirrortest"
	"braid/engine/torrent/torrenttest"
	"braid/queue"
)

// TestMagnetWindowFetchesMetadata starts the real binary in a real window
// on its own Xvfb display with a magnet link of a torrent of two files,
// whose x.pe is a loopback seeder: the window fetches the metadata before
// it queues the link, so the job holds the torrent's own files and sizes
// (not one entry of unknown size named after the link) and the torrent
// itself, for its runs.
func TestMagnetWindowFetchesMetadata(t *testing.T) {
	t.Parallel()
	tmp, bin, display := realWindow(t)
	src := filepath.Join(tmp, "seed")
	files := []torrenttest.File{{Path: "a.bin", Data: mirrortest.Bytes(600<<10, 41)}, {Path: "docs/b.txt", Data: mirrortest.Bytes(5000, 42)}}
	mi := torrenttest.Make(t, src, "braid-set", 64<<10, files)
	peer := torrenttest.Seed(t, src, mi)
	magnet := fmt.Sprintf("magnet:?xt=urn:btih:%s&dn=shown-name&x.pe=%s", mi.HashInfoBytes().HexString(), peer)

	state := filepath.Join(tmp, "state")
	q, err := queue.Open(state)
	if err != nil {
		t.Fatal(err)
	}
	err = q.UpdateSettings(func(st *queue.Settings) { st.Torrent = queue.TorrentSettings{SeedRatio: 0, Discovery: false} })
	q.Close()
	if err != nil {
		t.Fatal(err)
	}

	windowScreenshot(t, tmp, bin, display, "1s", state, magnet)

	q, err = queue.Open(state)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	jobs, err := q.List()
	if err != nil {
		t.Fatal(err)
	}
	if len(jobs) != 1 {
		t.Fatalf("%d jobs queued, want the magnet's", len(jobs))
	}
	j := jobs[0]
	sizes := map[string]int64{}
	for _, f := range j.Files {
		sizes[f.Name] = f.Size
	}
	if len(sizes) != 2 || sizes["braid-set/a.bin"] != 600<<10 || sizes["braid-set/docs/b.txt"] != 5000 {
		t.Fatalf("the job's files: %v", sizes)
	}
	spec, ok, err := q.TorrentSpec(j.ID)
	if err != nil || !ok || !bytes.Equal(spec.InfoBytes, mi.InfoBytes) {
		t.Fatalf("the job's stored torrent: %v, %v", ok, err)
	}
}
