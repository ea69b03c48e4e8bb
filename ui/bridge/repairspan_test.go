package bridge

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"braid/engine/mirrortest"
	"braid/engine/torrent/torrenttest"
	"braid/queue"
	"braid/ui"
)

// TestRepairTorrentPieceAcrossTwoFiles: a torrent of two files whose
// second piece holds the end of the first file and the start of the
// second. A byte changed on each side of that seam fails the one piece
// in both files; Repair fetches it again from the swarm, writes each
// file's part of it back, and the torrent ends done with both files the
// seeder's.
func TestRepairTorrentPieceAcrossTwoFiles(t *testing.T) {
	t.Parallel()
	src := t.TempDir()
	a, b2 := mirrortest.Bytes(100<<10, 21), mirrortest.Bytes(200<<10, 22)
	mi := torrenttest.Make(t, src, "pair", 64<<10, []torrenttest.File{{Path: "a.bin", Data: a}, {Path: "b.bin", Data: b2}})
	peer := torrenttest.Seed(t, src, mi)
	magnet := fmt.Sprintf("magnet:?xt=urn:btih:%s&dn=pair&x.pe=%s", mi.HashInfoBytes().HexString(), peer)

	q := openQueue(t)
	if err := q.UpdateSettings(func(st *queue.Settings) { st.Torrent = queue.TorrentSettings{SeedRatio: 0} }); err != nil {
		t.Fatal(err)
	}
	b := startedBackend(t, q)
	dest := t.TempDir()
	id, err := b.Add(context.Background(), ui.AddRequest{Source: magnet, Doc: openDoc(t, b, magnet), Dir: dest})
	if err != nil {
		t.Fatal(err)
	}
	waitForJob(t, b, id, "the torrent to download", func() bool {
		j := jobByID(t, b, id)
		return j.State == ui.Done && !slices.Contains(b.runner.Seeding(), int64(id))
	})
	fileA, fileB := filepath.Join(dest, "pair", "a.bin"), filepath.Join(dest, "pair", "b.bin")
	// Piece 1 is bytes 64 KiB to 128 KiB: a.bin's last 36 KiB and b.bin's
	// first 28 KiB.
	for _, c := range []struct {
		file string
		at   int64
	}{{fileA, 90 << 10}, {fileB, 10 << 10}} {
		f, err := os.OpenFile(c.file, os.O_RDWR, 0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.WriteAt([]byte{0xee}, c.at); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	if err := b.Verify(id); err != nil {
		t.Fatal(err)
	}
	waitForJob(t, b, id, "Verify to find the bad piece", func() bool { return jobByID(t, b, id).State == ui.Failed })
	if j := jobByID(t, b, id); !j.Mismatch {
		t.Fatalf("after two changed bytes in one piece: %s, mismatch %v (%q)", j.State, j.Mismatch, j.Err)
	}
	if err := b.Repair(id); err != nil {
		t.Fatalf("Repair: %v", err)
	}
	waitForJob(t, b, id, "Repair to fetch the piece again", func() bool {
		ga, _ := os.ReadFile(fileA)
		gb, _ := os.ReadFile(fileB)
		return jobByID(t, b, id).State == ui.Done && bytes.Equal(ga, a) && bytes.Equal(gb, b2)
	})
	qj, err := q.Get(int64(id))
	if err != nil {
		t.Fatal(err)
	}
	if qj.State != queue.Done || qj.Mismatch {
		t.Errorf("the queue after Repair: %s, mismatch %v, %q", qj.State, qj.Mismatch, qj.Error)
	}
}
