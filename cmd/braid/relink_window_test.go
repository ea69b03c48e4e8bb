//go:build !headless

package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"braid/engine"
	"braid/engine/mirrortest"
	"braid/engine/netconf/netconftest"
	"braid/queue"
	"braid/runner"
)

// TestWindowChangeLink runs the real binary on its own Xvfb display over a
// job whose signed link (nginx secure_link) expired after it served part
// of the file: the window shows it "link expired". A right click on its
// row, the menu's first item (Change link…), a pasted link to another
// file of the same size: the dialog says why it is refused and stays; the
// link to the same file: the job resumes, the file lands, and the new
// link sent only what was missing (and the sampled ranges it compared).
func TestWindowChangeLink(t *testing.T) {
	t.Parallel()
	xdotool := needXdotool(t)
	needXwd(t)
	const size = 10<<20 + 5
	data := mirrortest.Bytes(size, 51)
	ng := netconftest.SignedNginx(t, map[string][]byte{"f.bin": data, "g.bin": mirrortest.Bytes(size, 52)})
	r := newWindowRig(t, "downloads")

	// The job's life before the window: a few pieces, a pause, the link
	// expires, a run meets the expiry.
	ctx0 := context.Background()
	q, err := queue.Open(r.state)
	if err != nil {
		t.Fatal(err)
	}
	first := time.Now().Add(4 * time.Second)
	link := ng.Link("f.bin", first)
	doc, origin, err := runner.ResolveSource(ctx0, link, runner.ResolveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	id, err := q.Add(queue.NewJob{Source: link, Dest: r.dest, Doc: doc, Origin: origin})
	if err != nil {
		t.Fatal(err)
	}
	rn := &runner.Runner{Queue: q, Client: &engine.Client{MaxConns: 2}}
	runCtx, stop := context.WithCancel(ctx0)
	ran := make(chan error, 1)
	go func() { ran <- rn.RunJob(runCtx, id) }()
	for {
		b, _, err := q.Pieces(id, "f.bin")
		if err != nil {
			t.Fatal(err)
		}
		if b.Count() >= 3 {
			break
		}
		if time.Now().After(first) {
			t.Skip("the machine is too slow: the link expired before three pieces were kept")
		}
		time.Sleep(20 * time.Millisecond)
	}
	stop()
	<-ran
	time.Sleep(time.Until(first.Add(1100 * time.Millisecond)))
	if err := q.Resume(id); err != nil {
		t.Fatal(err)
	}
	_ = rn.RunJob(ctx0, id)
	j, _ := q.Get(id)
	_ = rn.Close()
	q.Close()
	if !j.LinkExpired() {
		t.Fatalf("the job is %s (%q), want link expired", j.State, j.Error)
	}
	// What the job keeps: its pieces, and the bytes inside the pieces it
	// had not finished (a file without piece hashes).
	_, _, keptBytes, _ := j.Progress()

	env := r.env()
	ctx, cancel := context.WithTimeout(ctx0, 4*time.Minute)
	defer cancel()
	var out syncBuffer
	win := startWindow(ctx, t, r.bin, env, &out)
	xdo := xdoRunner(ctx, t, xdotool, env, &out)
	waitText := func(what string, want ...string) string {
		t.Helper()
		return waitWindowText(ctx, t, env, r.dump, &out, 60*time.Second, "relink-", what, want...)
	}
	wid := strings.Fields(xdo("search", "--sync", "--name", "^Braid$"))[0]
	waitText("the queue", "f.bin")

	row := findRow(ctx, t, env)
	xdo("windowfocus", "--sync", wid)
	xdo("mousemove", "--sync", strconv.Itoa(row.x0-60), strconv.Itoa(row.y))
	xdo("click", "1")
	time.Sleep(450 * time.Millisecond)
	time.Sleep(time.Second) // the details fill in on the next reading
	windowShot(ctx, t, env, "relink-expired")
	xdo("click", "3")
	time.Sleep(400 * time.Millisecond)
	windowShot(ctx, t, env, "relink-row-menu")
	xdo("key", "Down")
	xdo("key", "Return") // the menu's first item: Change link…
	waitText("the dialog", "has expired. Paste a new one")
	time.Sleep(300 * time.Millisecond)

	fresh := time.Now().Add(time.Hour)
	xdo("type", "--delay", "2", ng.Link("g.bin", fresh))
	xdo("key", "Return")
	waitText("the refusal", "The new link cannot replace the old one:", "it serves a different file")
	time.Sleep(300 * time.Millisecond)
	windowShot(ctx, t, env, "relink-refused")
	if b, _ := os.ReadFile(filepath.Join(r.dest, "f.bin")); b != nil {
		t.Fatal("the file landed after a refused link")
	}

	good := fresh.Add(time.Second)
	xdo("key", "ctrl+a")
	xdo("type", "--delay", "2", ng.Link("f.bin", good))
	xdo("key", "Return")
	waitJob(ctx, t, r.bin, env, r.state, "the download after the new link", func(j queueJob) bool { return j.State == "done" })
	if got, _ := os.ReadFile(filepath.Join(r.dest, "f.bin")); !bytes.Equal(got, data) {
		t.Fatal("f.bin is not the origin's file")
	}
	again := ng.Sent(t, good)
	missing := int64(size) - keptBytes
	checks := int64(runner.Samples*runner.SampleSize) + 1
	t.Logf("kept %d of %d bytes; the new link sent %d (missing %d, checks at most %d): %.3f of the missing",
		keptBytes, size, again, missing, checks, float64(again)/float64(missing))
	if again > missing+checks || keptBytes <= 0 || again < missing {
		t.Errorf("the new link sent %d bytes; %d were missing (+%d for checks), %d kept", again, missing, checks, keptBytes)
	}
	xdo("windowfocus", "--sync", wid)
	xdo("key", "ctrl+q")
	_ = win.Wait()
}
