package runner

import (
	"bytes"
	"testing"

	"braid/engine/mirrortest"
	"braid/engine/torrent"
	"braid/engine/torrent/torrenttest"
	"braid/queue"
	"braid/queue/queuetest"
)

// A bad piece shared by two files of a torrent costs each file only its
// own bytes in that piece.
func TestKeepCheckedBytesSharedPiece(t *testing.T) {
	t.Parallel()
	const kib = 1 << 10
	mi := torrenttest.Make(t, t.TempDir(), "pair", 64*kib, []torrenttest.File{
		{Path: "a.bin", Data: mirrortest.Bytes(100*kib, 12)},
		{Path: "b.bin", Data: mirrortest.Bytes(100*kib, 12)},
	})
	var raw bytes.Buffer
	if err := mi.Write(&raw); err != nil {
		t.Fatal(err)
	}
	spec, err := torrent.ParseMetainfo(raw.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	doc, err := torrent.Document(spec, "pair.torrent")
	if err != nil {
		t.Fatal(err)
	}
	q := queuetest.Open(t, queue.Open, t.TempDir())
	id, err := q.Add(queue.NewJob{Source: "pair.torrent", Dest: t.TempDir(), Doc: doc})
	if err != nil {
		t.Fatal(err)
	}
	// Piece 1 holds a's bytes [64 KiB, 100 KiB) and b's first 28 KiB.
	want := map[string]int64{"pair/a.bin": 64 * kib, "pair/b.bin": 72 * kib}
	for _, f := range doc.Files {
		keepCheckedBytes(q, id, spec, f.Name, []int{1})
	}
	j, err := q.Get(id)
	if err != nil {
		t.Fatal(err)
	}
	if len(j.Files) != len(want) {
		t.Fatalf("files %+v", j.Files)
	}
	for _, f := range j.Files {
		if w, ok := want[f.Name]; !ok || f.DoneBytes != w {
			t.Errorf("%s keeps %d bytes, want %d", f.Name, f.DoneBytes, w)
		}
	}
}
