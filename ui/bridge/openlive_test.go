package bridge

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"braid/engine/metalink"
	"braid/engine/torrent/torrenttest"
	"braid/internal/testkit"
	"braid/queue"
	"braid/ui"
)

// opened is what OpenLive handed the desktop: a target and a final name.
type opened struct{ target, name string }

// catchOpens makes b hand what it opens to a channel, not the desktop.
func catchOpens(b *Backend) <-chan opened {
	c := make(chan opened, 4)
	b.opener.as = func(target, name string) error {
		c <- opened{target, name}
		return nil
	}
	return c
}

// Open while it downloads, on a running torrent: the backend hands the
// desktop an address on the loopback server with the file's final name,
// and a player's range far into the file reads the file's bytes there
// while the download (a peer through a 256 KiB/s limit) is far from
// there.
func TestOpenLiveTorrent(t *testing.T) {
	t.Parallel()
	src := t.TempDir()
	data := ownPayload(t, 8<<20)
	mi := torrenttest.Make(t, src, "clip.mkv", 64<<10, []torrenttest.File{{Data: data}})
	peer := torrenttest.Seed(t, src, mi)
	magnet := fmt.Sprintf("magnet:?xt=urn:btih:%s&dn=clip.mkv&x.pe=%s", mi.HashInfoBytes().HexString(), peer)

	q := torrentQueue(t, 0)
	b := startedBackend(t, q)
	s, err := b.Settings()
	if err != nil {
		t.Fatal(err)
	}
	s.SpeedLimit = 256 << 10
	if err := b.SetSettings(s); err != nil {
		t.Fatal(err)
	}
	opens := catchOpens(b)
	doc := openDoc(t, b, magnet)
	id, err := b.Add(context.Background(), ui.AddRequest{Source: magnet, Doc: doc, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, "the torrent to download", func() bool {
		j := jobByID(t, b, id)
		if j.State == ui.Failed {
			t.Fatalf("failed: %s (%s)", j.Err, j.ErrDetail)
		}
		return j.State == ui.Running && j.Done > 0
	})
	if !b.CanOpenLive(id) {
		t.Fatal("a running torrent cannot be opened while it downloads")
	}
	if err := b.OpenLive(id); err != nil {
		t.Fatal(err)
	}
	var o opened
	select {
	case o = <-opens:
	case <-time.After(10 * time.Second):
		t.Fatal("nothing was opened")
	}
	if o.name != "clip.mkv" || !strings.HasPrefix(o.target, "http://127.0.0.1:") || !strings.HasSuffix(o.target, "/clip.mkv") {
		t.Fatalf("opened %q as %q", o.target, o.name)
	}
	const from, n = 6 << 20, 64 << 10
	req, _ := http.NewRequest(http.MethodGet, o.target, nil)
	req.Header.Set("Range", fmt.Sprintf("bytes=%d-%d", from, from+n-1))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusPartialContent || !bytes.Equal(body, data[from:from+n]) {
		t.Fatalf("the range at 6 MiB: %s, %d bytes (%v), not the file's", resp.Status, len(body), err)
	}
	if j := jobByID(t, b, id); j.State != ui.Running || j.Done >= int64(len(data)) {
		t.Fatalf("the torrent was %v with %d of %d bytes when the range was read: the test shows nothing", j.State, j.Done, len(data))
	}
}

// A download that is not in order cannot be opened while it downloads,
// and says why; in order, a file nothing of which has arrived says so.
func TestOpenLiveNeedsOrderAndBytes(t *testing.T) {
	t.Parallel()
	q := openQueue(t)
	b := newBackend(t, q)
	catchOpens(b)
	link := "http://127.0.0.1:9/film.mkv"
	doc := &metalink.Document{Version: 4, Files: []metalink.File{{Name: "film.mkv", Size: 1 << 20, URLs: []metalink.URL{{URL: link, Priority: 1}}}}}
	qid, err := q.Add(queue.NewJob{Source: link, Dest: t.TempDir(), Doc: doc})
	if err != nil {
		t.Fatal(err)
	}
	id := ui.JobID(qid)
	if b.CanOpenLive(id) {
		t.Error("a download not in order can be opened while it downloads")
	}
	if err := b.OpenLive(id); err == nil || !strings.Contains(err.Error(), "Download in order") {
		t.Errorf("not in order: %v", err)
	}
	if err := b.SetInOrder(id, true); err != nil {
		t.Fatal(err)
	}
	if !b.CanOpenLive(id) {
		t.Error("a download in order cannot be opened while it downloads")
	}
	if err := b.OpenLive(id); err == nil || !strings.Contains(err.Error(), "Nothing of film.mkv has arrived yet") {
		t.Errorf("nothing there yet: %v", err)
	}
}
