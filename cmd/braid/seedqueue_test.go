package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/anacrolix/torrent/metainfo"

	"braid/engine/metalink"
	"braid/engine/mirrortest"
	"braid/engine/torrent"
	"braid/engine/torrent/torrenttest"
	"braid/internal/testkit"
	"braid/queue"
)

// seedQueue is a queue with one torrent job of data, named name, cut in
// pieces of pieceLen and web-seeded by a loopback mirror, and torrent
// settings that seed to ratio 1 without discovery on a free port. With
// present, the file is in dest already (the run checks it and seeds).
// The queue is returned open, for the test to add to it and close.
type seedQueue struct {
	state, dest string
	q           *queue.Queue
	id          int64
	m           *mirrortest.Mirror
	mi          *metainfo.MetaInfo
	port        int // the torrent client's, by the settings
	data        []byte
}

func newSeedQueue(t *testing.T, name string, data []byte, pieceLen int64, present bool) *seedQueue {
	t.Helper()
	s := &seedQueue{state: t.TempDir(), dest: t.TempDir(), data: data}
	s.m = mirrortest.New(t, data)
	s.mi = torrenttest.Make(t, t.TempDir(), name, pieceLen, []torrenttest.File{{Data: data}}, s.m.URL())
	tf := torrenttest.WriteFile(t, s.mi, filepath.Base(name)+".torrent")
	if present {
		if err := os.WriteFile(filepath.Join(s.dest, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s.port = testkit.FreePort(t)
	var err error
	if s.q, err = queue.Open(s.state); err != nil {
		t.Fatal(err)
	}
	// A ratio no leecher here reaches: it seeds until stopped.
	if err := s.q.UpdateSettings(func(st *queue.Settings) {
		st.Torrent = queue.TorrentSettings{SeedRatio: 1, Discovery: false, Port: s.port}
	}); err != nil {
		t.Fatal(err)
	}
	_, doc := torrentDoc(t, tf)
	if s.id, err = s.q.Add(queue.NewJob{Source: tf, Dest: s.dest, Doc: doc}); err != nil {
		t.Fatal(err)
	}
	return s
}

// torrentDoc reads the .torrent file tf as the queue takes it: its spec
// and the document of its files.
func torrentDoc(t testing.TB, tf string) (*torrent.Spec, *metalink.Document) {
	t.Helper()
	spec, err := torrent.Resolve(context.Background(), tf, nil)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := torrent.Document(spec, tf)
	if err != nil {
		t.Fatal(err)
	}
	return spec, doc
}
