package torrent

import (
	"context"
	"testing"
	"time"

	"braid/engine"
)

// orderSeen runs the one-file torrent of data, named name, from a real
// seeder through a slow limit, in order or not, and returns how many
// pieces were done when the file's last piece first was, and the largest
// lead seen: how many pieces past the done prefix the furthest done piece
// other than the last lay.
func orderSeen(t *testing.T, name string, data []byte, inOrder bool) (atLast, lead, n int) {
	t.Helper()
	src := t.TempDir()
	mi := makeTorrent(t, src, "one", []testFile{{Path: name, Data: data}})
	addr := seeder(t, src, mi)
	c := NewClient(Config{ListenHost: "127.0.0.1", Logger: discard, DownloadLimit: 1 << 20})
	t.Cleanup(func() { c.Close() })
	spec := specOf(t, mi)
	spec.Peers = []string{addr}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	dir := t.TempDir()
	j, err := c.Start(ctx, &Request{Dir: dir, Spec: spec, InOrder: inOrder})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(j.Stop)
	atLast = -1
	watch := func() {
		s := j.Snapshot()
		n = len(s.Pieces)
		if n == 0 {
			return
		}
		done, prefix, top := 0, 0, -1
		for i, st := range s.Pieces {
			if st == engine.PieceDone {
				done++
				if i < n-1 {
					top = i
				}
			}
		}
		for prefix < n && s.Pieces[prefix] == engine.PieceDone {
			prefix++
		}
		lead = max(lead, top+1-min(prefix, top+1))
		if atLast < 0 && s.Pieces[n-1] == engine.PieceDone {
			atLast = done
		}
	}
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-j.Done():
			watch()
			if err := j.Err(); err != nil {
				t.Fatalf("in order %v: %v", inOrder, err)
			}
			sameFile(t, dir, "one/"+name, data)
			return atLast, lead, n
		case <-tick.C:
			watch()
		}
	}
}

// A media file in order gets its last piece (where players find a
// container's index) among the first, and the rest from the start: from a
// real seeder through a 1 MiB/s limit, the last piece of clip.mkv is done
// among the first, and no done piece runs further ahead of the whole
// prefix than the window (4 MiB at this speed, and a little for a speed
// measured high). Without order, the library's own choice runs nearly the
// whole file ahead, which shows the check can fail.
func TestInOrderTorrentMediaEdgesFirst(t *testing.T) {
	t.Parallel()
	data := randomBytes(t, 8<<20+5) // 257 pieces of 32 KiB
	const bound = 5 << 20 / testPieceLen
	atLast, lead, n := orderSeen(t, "clip.mkv", data, true)
	t.Logf("in order: the last piece was done with %d of %d pieces; largest lead %d pieces", atLast, n, lead)
	if atLast < 0 || atLast > n/8 {
		t.Errorf("in order, the last piece of a media file was done with %d of %d pieces; want it among the first %d", atLast, n, n/8)
	}
	if lead > bound {
		t.Errorf("in order, a done piece lay %d pieces past the whole prefix; want at most %d", lead, bound)
	}
	_, normal, n := orderSeen(t, "clip.mkv", data, false)
	t.Logf("not in order: largest lead %d pieces", normal)
	if normal <= n*9/10 {
		t.Errorf("without order the pieces ran only %d of %d pieces ahead; the test cannot tell order from none", normal, n)
	}
}
