package runner

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"braid/engine"
	"braid/engine/mirrortest"
	"braid/engine/netconf/netconftest"
	"braid/queue"
	"braid/queue/queuetest"
)

// TestRelinkExpiredLink: a signed link serves part of a file, the job is
// paused, the link expires; the next run puts the job in "link expired"
// (not failed). A fresh link to another file of the same size is refused
// and the job left as it was; a fresh link to the same file is taken and
// only the missing bytes are fetched again.
func TestRelinkExpiredLink(t *testing.T) {
	t.Parallel()
	const size = 12<<20 + 333
	data := mirrortest.Bytes(size, 21)
	other := mirrortest.Bytes(size, 22)
	ng := netconftest.SignedNginx(t, map[string][]byte{"f.bin": data, "g.bin": other})
	dir := t.TempDir()
	q := queuetest.Open(t, queue.Open, t.TempDir())
	ctx := context.Background()

	first := time.Now().Add(4 * time.Second)
	link := ng.Link("f.bin", first)
	doc, origin, err := ResolveSource(ctx, link, ResolveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	id, err := q.Add(queue.NewJob{Source: link, Dest: dir, Doc: doc, Origin: origin})
	if err != nil {
		t.Fatal(err)
	}
	r := &Runner{Queue: q, Client: &engine.Client{MaxConns: 2}}
	defer r.Close()

	// Run until a few pieces are kept, then stop (the user pauses).
	runCtx, stop := context.WithCancel(ctx)
	ran := make(chan error, 1)
	go func() { ran <- r.RunJob(runCtx, id) }()
	for {
		b, _, err := q.Pieces(id, "f.bin")
		if err != nil {
			t.Fatal(err)
		}
		if b.Count() >= 3 {
			break
		}
		if time.Now().After(first) {
			t.Fatal("the link expired before three pieces were kept")
		}
		time.Sleep(20 * time.Millisecond)
	}
	stop()
	<-ran
	time.Sleep(time.Until(first.Add(1100 * time.Millisecond)))

	if err := q.Resume(id); err != nil {
		t.Fatal(err)
	}
	err = r.RunJob(ctx, id)
	j, _ := q.Get(id)
	if !j.LinkExpired() || !errors.Is(err, queue.ErrPaused) {
		t.Fatalf("after the link expired: state %s (%q), err %v; want link expired", j.State, j.Error, err)
	}
	if !strings.Contains(j.Error, fmt.Sprintf("braid queue relink %d URL", id)) || !strings.Contains(j.Error, "410") {
		t.Errorf("the reason does not say the next step: %q", j.Error)
	}
	// What the job keeps: its pieces, and the bytes inside the pieces it
	// had not finished (a file without piece hashes).
	_, _, keptBytes, _ := j.Progress()

	// Same size, different bytes: refused, the job as it was.
	fresh := time.Now().Add(time.Hour)
	_, err = Relink(ctx, q, nil, id, ng.Link("g.bin", fresh))
	if !errors.Is(err, queue.ErrRelink) || !strings.Contains(err.Error(), "different file") {
		t.Fatalf("a different file of the same size: %v", err)
	}
	j2, _ := q.Get(id)
	if !j2.LinkExpired() || j2.Files[0].Mirrors[0].URL != j.Files[0].Mirrors[0].URL || j2.Files[0].Done != j.Files[0].Done {
		t.Errorf("the refused relink changed the job: %+v", j2)
	}

	newLink := ng.Link("f.bin", fresh.Add(time.Second))
	checked, err := Relink(ctx, q, nil, id, newLink)
	if err != nil {
		t.Fatalf("relink: %v", err)
	}
	if !strings.Contains(checked, "ranges of the bytes on disk agree") {
		t.Errorf("checked: %q", checked)
	}
	if s, _ := q.StateOf(id); s != queue.Queued {
		t.Errorf("after relink the job is %s, want queued", s)
	}
	if err := r.RunJob(ctx, id); err != nil {
		t.Fatalf("after relink: %v", err)
	}
	on, err := os.ReadFile(filepath.Join(dir, "f.bin"))
	if err != nil || string(on) != string(data) {
		t.Fatalf("f.bin after relink: %v", err)
	}
	again := ng.Sent(t, fresh.Add(time.Second))
	missing := int64(size) - keptBytes
	checks := int64(Samples*SampleSize) + 1 // the samples and the new link's probe
	t.Logf("kept %d of %d bytes; the new link sent %d (missing %d, checks at most %d): %.3f of the missing",
		keptBytes, size, again, missing, checks, float64(again)/float64(missing))
	if again > missing+checks {
		t.Errorf("the new link sent %d bytes; only %d were missing (+%d for checks)", again, missing, checks)
	}
	if keptBytes <= 0 || again < missing {
		t.Errorf("kept %d, sent %d of %d missing: the test proves nothing", keptBytes, again, missing)
	}
}

// TestGetLinkExpired: braid get's run of a signed link is stopped part
// way; once the link has expired, the next get says "link expired" with
// the next step, and the queue holds the job in that state, not failed.
func TestGetLinkExpired(t *testing.T) {
	t.Parallel()
	const size = 8 << 20
	data := mirrortest.Bytes(size, 25)
	ng := netconftest.SignedNginx(t, map[string][]byte{"f.bin": data})
	state, dir := t.TempDir(), t.TempDir()
	expires := time.Now().Add(4 * time.Second)
	link := ng.Link("f.bin", expires)

	ctx, stop := context.WithCancel(context.Background())
	obs := &quietObserver{}
	ran := make(chan bool, 1)
	go func() {
		g := &Get{Dir: dir, State: state, Client: &engine.Client{MaxConns: 2}, Observer: obs}
		ran <- g.Run(ctx, []string{link})
	}()
	var q *queue.Queue
	for q == nil || func() bool {
		jobs, err := q.List()
		if err != nil || len(jobs) != 1 {
			return true
		}
		b, _, err := q.Pieces(jobs[0].ID, "f.bin")
		return err != nil || b.Count() < 2
	}() {
		if time.Now().After(expires) {
			t.Fatal("the link expired before two pieces were kept")
		}
		if q == nil {
			if _, err := os.Stat(filepath.Join(state, "state.db")); err == nil {
				q = queuetest.Open(t, queue.Open, state)
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	stop()
	<-ran
	time.Sleep(time.Until(expires.Add(1100 * time.Millisecond)))

	obs = &quietObserver{}
	g := &Get{Dir: dir, State: state, Client: &engine.Client{MaxConns: 2}, Observer: obs}
	if g.Run(context.Background(), []string{link}) {
		t.Fatal("a get of an expired link succeeded")
	}
	said := ""
	for _, r := range obs.results {
		if r.Err != nil {
			said += r.Err.Error()
		}
	}
	if !strings.Contains(said, "link expired") || !strings.Contains(said, "braid queue relink 1 URL") {
		t.Errorf("get said %q", said)
	}
	j, err := q.Get(1)
	if err != nil || !j.LinkExpired() {
		t.Errorf("the job is %s (%q), want link expired (%v)", j.State, j.Error, err)
	}
}
