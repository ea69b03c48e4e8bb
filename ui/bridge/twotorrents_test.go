package bridge

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"braid/engine/torrent/torrenttest"
	"braid/internal/testkit"
	"braid/queue"
	"braid/ui"
)

// Two torrent jobs run at once through the session's one BitTorrent
// client, each with its own live snapshot: while both download, the
// window's rows for both show their swarm (peers) and bytes rising at the
// same time. (A runner that kept one slot for "the torrent running now"
// lost the first one's live state to the second.)
func TestTwoTorrentsLiveAtOnce(t *testing.T) {
	t.Parallel()
	const size = 2 << 20
	type tor struct {
		name, magnet string
		data         []byte
		id           ui.JobID
	}
	tors := []*tor{{name: "left.bin"}, {name: "right.bin"}}
	for i, tr := range tors {
		src := t.TempDir()
		tr.data = payload(size + i*(64<<10)) // not the same bytes: two torrents
		mi := torrenttest.Make(t, src, tr.name, 64<<10, []torrenttest.File{{Data: tr.data}})
		peer := torrenttest.Seed(t, src, mi)
		tr.magnet = fmt.Sprintf("magnet:?xt=urn:btih:%s&dn=%s&x.pe=%s", mi.HashInfoBytes().HexString(), tr.name, peer)
	}

	q := torrentQueue(t, 0)
	// Slow enough, for the two together, that both run for seconds.
	if err := q.UpdateSettings(func(s *queue.Settings) { s.SpeedLimit = 393216 }); err != nil {
		t.Fatal(err)
	}
	b := newBackend(t, q)
	// The session's one client listens on loopback only; the queue's
	// settings keep it to the peers the links name.
	b.runner.TorrentOptions.ListenHost = "127.0.0.1"
	if err := b.Start(false); err != nil {
		t.Fatal(err)
	}
	dest := t.TempDir()
	for _, tr := range tors {
		doc := openDoc(t, b, tr.magnet)
		id, err := b.Add(context.Background(), ui.AddRequest{Source: tr.magnet, Doc: doc, Dir: dest})
		if err != nil {
			t.Fatal(err)
		}
		tr.id = id
	}

	// A reading is one Active call in which both rows run with a peer.
	// Each row's bytes must rise between such readings at least twice:
	// the two share one speed limit, so between two readings a quarter
	// of a second apart one may take the whole share, but a row whose
	// live state was lost would not rise at all.
	type reading struct{ done [2]int64 }
	var first, last *reading
	readings := 0
	var rose [2]int
	deadline := time.Now().Add(2 * time.Minute)
	for {
		rows := map[ui.JobID]ui.Job{}
		for _, j := range b.Active() {
			rows[j.ID] = j
		}
		var r reading
		both := true
		for i, tr := range tors {
			j, ok := rows[tr.id]
			if j.State == ui.Failed {
				t.Fatalf("%s failed: %s", tr.name, j.Err)
			}
			both = both && ok && j.State == ui.Running && j.Peers >= 1 && j.Done > 0 && j.Done < j.Size
			r.done[i] = j.Done
		}
		if both {
			readings++
			if first == nil {
				first = &r
			}
			for i := range rose {
				if last != nil && r.done[i] > last.done[i] {
					rose[i]++
				}
			}
			last = &r
		}
		if rose[0] >= 2 && rose[1] >= 2 {
			break
		}
		finished := true
		for _, tr := range tors {
			finished = finished && jobByID(t, b, tr.id).State == ui.Done
		}
		if finished || time.Now().After(deadline) {
			t.Fatalf("until both ended (or two minutes), %d readings showed both torrents running with a peer; between them the bytes rose %d times for %s, %d for %s", readings, rose[0], tors[0].name, rose[1], tors[1].name)
		}
		time.Sleep(250 * time.Millisecond)
	}
	t.Logf("%d readings with both torrents live; from %v to %v bytes", readings, first.done, last.done)

	for _, tr := range tors {
		testkit.WaitFor(t, tr.name+" to finish", func() bool {
			j := jobByID(t, b, tr.id)
			if j.State == ui.Failed {
				t.Fatalf("%s failed: %s", tr.name, j.Err)
			}
			return j.State == ui.Done
		})
		got, err := os.ReadFile(filepath.Join(dest, tr.name))
		if err != nil || !bytes.Equal(got, tr.data) {
			t.Fatalf("%s: %d bytes, %v", tr.name, len(got), err)
		}
	}
}
