//go:build !headless

package main

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"braid/engine/mirrortest"
	"braid/engine/torrent/torrenttest"
	"braid/queue"
)

// TestWindowFilePriorities runs the real binary on its own Xvfb display
// with a paused three-file torrent: a.bin high, b.bin normal, c.bin
// skipped. A click on its row shows the Files tab with a box and a
// priority by each fetched file and the skipped one unticked; choosing
// High for b.bin and ticking c.bin with the mouse reach the queue.
func TestWindowFilePriorities(t *testing.T) {
	t.Parallel()
	xdotool := needXdotool(t)
	needXwd(t)
	r := newWindowRig(t, "downloads")
	src := t.TempDir()
	mi := torrenttest.Make(t, src, "album", 64<<10, []torrenttest.File{
		{Path: "a.bin", Data: mirrortest.Bytes(300<<10, 1)},
		{Path: "b.bin", Data: mirrortest.Bytes(200<<10, 2)},
		{Path: "c.bin", Data: mirrortest.Bytes(100<<10, 3)},
	})
	tf := torrenttest.WriteFile(t, mi, "album.torrent")
	spec, doc := torrentDoc(t, tf)
	q, err := queue.Open(r.state)
	if err != nil {
		t.Fatal(err)
	}
	id, err := q.Add(queue.NewJob{Source: tf, Dest: r.dest, Doc: doc, Selected: []string{"album/a.bin", "album/b.bin"}})
	if err == nil {
		err = q.SetTorrentSpec(id, spec)
	}
	if err == nil {
		err = q.Pause(id, "")
	}
	if err == nil {
		err = q.SetFile(id, "album/a.bin", queue.High(true))
	}
	q.Close()
	if err != nil {
		t.Fatal(err)
	}

	env := r.env()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var out syncBuffer
	startWindow(ctx, t, r.bin, env, &out)
	xdo := xdoRunner(ctx, t, xdotool, env, &out)
	keep := func(name string) { windowShot(ctx, t, env, name) }
	waitText := func(what string, want ...string) string {
		t.Helper()
		return waitWindowText(ctx, t, env, r.dump, &out, 60*time.Second, "files-", what, want...)
	}
	ids := strings.Fields(xdo("search", "--sync", "--name", "^Braid$"))
	if len(ids) == 0 {
		t.Fatalf("the window never showed\n%s", out.String())
	}
	wid := ids[0]
	waitText("the queue", "album")
	at := func(name, def string) (string, string) {
		v := os.Getenv("BRAID_TEST_AT_" + name)
		if v == "" {
			v = def
		}
		x, y, _ := strings.Cut(v, ",")
		return x, y
	}
	click := func(name, def string) {
		x, y := at(name, def)
		xdo("windowfocus", "--sync", wid)
		xdo("mousemove", "--sync", x, y)
		xdo("click", "1")
		time.Sleep(500 * time.Millisecond)
	}
	// The row, right of the side panel; the details open on Files.
	// (An idle window draws no new text dump: the queue says what the
	// clicks did.)
	click("ROW", "600,172")
	time.Sleep(time.Second)
	keep("files-priority")
	// b.bin's choice, then High in the menu it opens.
	click("B_PRIORITY", "540,571")
	keep("files-priority-menu")
	click("HIGH", "540,640")
	keep("files-priority-chosen")
	// The skipped c.bin's box: ticked, the paused torrent will fetch it.
	click("C_BOX", "212,610")
	keep("files-priority-ticked")
	for end := time.Now().Add(20 * time.Second); ; time.Sleep(300 * time.Millisecond) {
		q, err := queue.Open(r.state)
		if err != nil {
			t.Fatal(err)
		}
		j, err := q.Get(id)
		q.Close()
		picked := err == nil && len(j.Files) == 3 && j.Files[2].Name == "album/c.bin" && j.Files[2].Selected
		high := map[string]bool{}
		for _, f := range j.Files {
			high[f.Name] = f.High
		}
		if picked && high["album/b.bin"] && high["album/a.bin"] {
			break
		}
		if time.Now().After(end) {
			keep("files-priority-failed")
			t.Fatalf("the queue never had b.bin high and c.bin selected: %v %v %+v\n%s", high, err, j.Files, out.String())
		}
	}
}
