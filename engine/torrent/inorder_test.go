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

// A file skipped while a torrent runs in order is no longer fetched for
// the window's sake: the pieces raised for it go back to nothing. From a
// real seeder through a 1 MiB/s limit, a.bin (4 MiB) is skipped once its
// first 256 KiB are done; the job completes with b.bin (4 MiB) alone, and
// a.bin has little more than what was done or asked for when it was
// skipped. With the lowering taken out, a.bin ends whole (checked by
// hand).
func TestInOrderTorrentSkipLowersTheWindow(t *testing.T) {
	t.Parallel()
	src := t.TempDir()
	files := []testFile{{Path: "a.bin", Data: randomBytes(t, 4<<20)}, {Path: "b.bin", Data: randomBytes(t, 4<<20+3)}}
	mi := makeTorrent(t, src, "two", files)
	addr := seeder(t, src, mi)
	c := NewClient(Config{ListenHost: "127.0.0.1", Logger: discard, DownloadLimit: 1 << 20})
	t.Cleanup(func() { c.Close() })
	spec := specOf(t, mi)
	spec.Peers = []string{addr}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	dir := t.TempDir()
	j, err := c.Start(ctx, &Request{Dir: dir, Spec: spec, InOrder: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(j.Stop)
	var fs []File
	for end := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		if fs = j.Snapshot().Files; len(fs) == 2 && fs[0].Bytes >= 256<<10 {
			break
		}
		if time.Now().After(end) {
			t.Fatalf("a.bin did not start within a minute: %+v", fs)
		}
	}
	if err := j.SetPriority("two/a.bin", Skip); err != nil {
		t.Fatal(err)
	}
	select {
	case <-j.Done():
	case <-ctx.Done():
		t.Fatal("the job did not end")
	}
	if err := j.Err(); err != nil {
		t.Fatal(err)
	}
	sameFile(t, dir, "two/b.bin", files[1].Data)
	a := j.Snapshot().Files[0]
	t.Logf("a.bin: %d of %d bytes when the job ended", a.Bytes, len(files[0].Data))
	// The window is 4 MiB, all of a.bin: had it stayed raised, a.bin
	// would be whole by the time b.bin is.
	if a.Bytes >= int64(len(files[0].Data))*3/4 {
		t.Errorf("a.bin, skipped, has %d of its %d bytes: its window kept it wanted", a.Bytes, len(files[0].Data))
	}
}
