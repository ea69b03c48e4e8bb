package bridge

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"braid/engine/metalink"
	"braid/engine/mirrortest"
	"braid/engine/torrent/torrenttest"
	"braid/queue"
	"braid/ui"
)

// TestAddUnreadListsTheLinkFailed reads two links whose servers answer
// 404 and 401 (real loopback servers) and adds each as the window adds a
// link of several that could not be read: a failed job with the reason,
// and for the 401 one whose LoginWanted names the server. A .meta4 link
// is no job of one file: it is not added.
func TestAddUnreadListsTheLinkFailed(t *testing.T) {
	t.Parallel()
	q := openQueue(t)
	b := newBackend(t, q)
	dest := t.TempDir()
	missing := mirrortest.New(t, []byte("x"), mirrortest.Path("/missing.bin"), mirrortest.Status(404))
	login := mirrortest.New(t, []byte("x"), mirrortest.Path("/secret.bin"), mirrortest.BasicAuth("ann", "pw"))
	for _, tt := range []struct {
		link  string
		login bool
	}{{missing.URL(), false}, {login.URL(), true}} {
		_, err := b.Open(context.Background(), tt.link)
		if err == nil {
			t.Fatalf("Open(%s) read it", tt.link)
		}
		id, ok, err := b.AddUnread(context.Background(), tt.link, dest, err)
		if err != nil || !ok {
			t.Fatalf("AddUnread(%s) = %v, %v", tt.link, ok, err)
		}
		j, err := q.Get(int64(id))
		if err != nil || j.State != queue.Failed || j.Error == "" || j.Files[0].Name != filepath.Base(tt.link) {
			t.Fatalf("job of %s: %+v, %v", tt.link, j, err)
		}
		req, wanted := b.LoginWanted(id)
		if wanted != tt.login || (tt.login && req.Host != login.Host()) {
			t.Errorf("%s: LoginWanted = %+v, %v; want %v", tt.link, req, wanted, tt.login)
		}
		if got, ok := b.InQueue(context.Background(), tt.link); !ok || got != id {
			t.Errorf("InQueue(%s) = %d, %v; want %d", tt.link, got, ok, id)
		}
	}
	if _, ok, err := b.AddUnread(context.Background(), missing.URL()+".meta4", dest, errors.New("404")); ok || err != nil {
		t.Errorf("a metalink's link was added as a job of one file: %v, %v", ok, err)
	}
}

// TestSecondAddOfATorrentIsRefused adds a .torrent, then the same
// torrent again through its magnet: InQueue finds the first job by the
// magnet alone, and an Add of the torrent read again is refused with
// the job it has already.
func TestSecondAddOfATorrentIsRefused(t *testing.T) {
	t.Parallel()
	src := t.TempDir()
	mi := torrenttest.Make(t, src, "pack", 64<<10, []torrenttest.File{{Path: "a.bin", Data: payload(100 << 10)}})
	tf := torrenttest.WriteFile(t, mi, "pack.torrent")
	q := torrentQueue(t, 0)
	b := newBackend(t, q)
	dest := t.TempDir()
	doc := openDoc(t, b, tf)
	first, err := b.Add(context.Background(), ui.AddRequest{Source: tf, Doc: doc, Files: []string{doc.Files[0].Name}, Dir: dest, Paused: true})
	if err != nil {
		t.Fatal(err)
	}
	magnet := "magnet:?xt=urn:btih:" + mi.HashInfoBytes().HexString() + "&dn=other"
	if id, ok := b.InQueue(context.Background(), magnet); !ok || id != first {
		t.Errorf("InQueue(magnet) = %d, %v; want %d", id, ok, first)
	}
	again := openDoc(t, b, tf)
	_, err = b.Add(context.Background(), ui.AddRequest{Source: tf + "?again", Doc: again, Files: []string{again.Files[0].Name}, Dir: dest, Paused: true})
	var dup *ui.InQueueError
	if !errors.As(err, &dup) || dup.ID != first {
		t.Fatalf("second Add of the torrent: %v, want it in the queue as job %d", err, first)
	}
	if jobs, _ := q.List(); len(jobs) != 1 {
		t.Errorf("%d jobs, want the first only", len(jobs))
	}
}

// TestRemoveWithDataDeletesThePart removes an unfinished job with its
// data: its .part is gone and named; another job removed without its data
// keeps its .part.
func TestRemoveWithDataDeletesThePart(t *testing.T) {
	t.Parallel()
	q := openQueue(t)
	b := newBackend(t, q)
	dest := t.TempDir()
	var ids []ui.JobID
	for _, name := range []string{"keep.bin", "gone.bin"} {
		doc := &metalink.Document{Version: 4, Files: []metalink.File{{Name: name, Size: 10,
			URLs: []metalink.URL{{URL: "http://127.0.0.1:9/" + name, Priority: 1}}}}}
		id, err := b.Add(context.Background(), ui.AddRequest{Source: "http://127.0.0.1:9/" + name, Doc: doc, Dir: dest, Paused: true})
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dest, name+".part"), []byte("12345"), 0o644); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	if err := b.Remove(ids[0]); err != nil {
		t.Fatal(err)
	}
	deleted, err := b.RemoveWithData(ids[1])
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(dest, "gone.bin.part"); len(deleted) != 1 || deleted[0] != want {
		t.Errorf("deleted %q, want %q", deleted, want)
	}
	if _, err := os.Stat(filepath.Join(dest, "gone.bin.part")); !os.IsNotExist(err) {
		t.Errorf("gone.bin.part: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dest, "keep.bin.part")); err != nil {
		t.Errorf("keep.bin.part, removed without its data: %v", err)
	}
	if jobs, _ := q.List(); len(jobs) != 0 {
		t.Errorf("%d jobs left", len(jobs))
	}
}
