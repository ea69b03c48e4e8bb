package bridge

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"braid/engine/mirrortest"
	"braid/engine/netconf/netconftest"
	"braid/internal/testkit"
	"braid/queue"
	"braid/runner"
	"braid/ui"
)

// TestRelinkThroughBridge: a job from a signed link (nginx secure_link)
// is paused part way and its link expires; resumed, the window shows it
// "link expired" with Change link as the way on. A new link to another
// file of the same size is refused with its reason alone, the job left as
// it was; a new link to the same file is taken, the job resumes by
// itself and the new link sends only the bytes that were missing (and
// the few the check compared).
func TestRelinkThroughBridge(t *testing.T) {
	t.Parallel()
	const size = 10<<20 + 77
	data := mirrortest.Bytes(size, 31)
	ng := netconftest.SignedNginx(t, map[string][]byte{"f.bin": data, "g.bin": mirrortest.Bytes(size, 32)})
	q := openQueue(t)
	b := newBackend(t, q)
	dir := t.TempDir()
	ctx := context.Background()

	first := time.Now().Add(4 * time.Second)
	link := ng.Link("f.bin", first)
	doc, origin, err := runner.ResolveSource(ctx, link, runner.ResolveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	id64, err := q.Add(queue.NewJob{Source: link, Dest: dir, Doc: doc, Origin: origin})
	if err != nil {
		t.Fatal(err)
	}
	id := ui.JobID(id64)
	if err := b.Start(true); err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, "three pieces kept", func() bool {
		bits, _, err := q.Pieces(id64, "f.bin")
		return err == nil && bits.Count() >= 3
	})
	if time.Now().After(first) {
		t.Skip("the machine is too slow: the link expired before three pieces were kept")
	}
	if err := b.Pause(id); err != nil {
		t.Fatal(err)
	}
	b.waitLetGo(id64)
	time.Sleep(time.Until(first.Add(1100 * time.Millisecond)))
	if err := b.Resume(id); err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, "link expired", func() bool {
		j, err := q.Get(id64)
		return err == nil && j.LinkExpired()
	})
	// The row says paused once the run has let go of the job, a moment
	// after the queue records why it stopped.
	var v ui.Job
	if !testkit.Eventually(testkit.Patience, func() bool {
		v = jobByID(t, b, id)
		return v.Mend == ui.MendLink && v.State == ui.Paused
	}) {
		t.Errorf("the window shows the expired job as %v (mend %d), want paused with Change link", v.State, v.Mend)
	}
	if ok, expired := b.CanRelink(id); !ok || !expired {
		t.Errorf("CanRelink = %v, %v; want true, true", ok, expired)
	}
	before, _ := q.Get(id64)
	// What the job keeps: its pieces, and the bytes inside the pieces it
	// had not finished (a file without piece hashes).
	_, _, keptBytes, _ := before.Progress()

	fresh := time.Now().Add(time.Hour)
	_, err = b.Relink(id, ng.Link("g.bin", fresh))
	if !errors.Is(err, queue.ErrRelink) || !strings.Contains(err.Error(), "different file") || strings.HasPrefix(err.Error(), "job ") {
		t.Fatalf("a different file of the same size: %v; want the reason alone, matching ErrRelink", err)
	}
	after, _ := q.Get(id64)
	if !after.LinkExpired() || after.Files[0].Mirrors[0].URL != before.Files[0].Mirrors[0].URL || after.Files[0].Done != before.Files[0].Done {
		t.Errorf("the refused link changed the job: %+v", after)
	}

	good := fresh.Add(time.Second)
	checked, err := b.Relink(id, ng.Link("f.bin", good))
	if err != nil {
		t.Fatalf("relink: %v", err)
	}
	if !strings.Contains(checked, "agree") {
		t.Errorf("checked: %q", checked)
	}
	testkit.WaitFor(t, "the job done after the new link", func() bool {
		s, err := q.StateOf(id64)
		return err == nil && s == queue.Done
	})
	on, err := os.ReadFile(filepath.Join(dir, "f.bin"))
	if err != nil || string(on) != string(data) {
		t.Fatalf("f.bin after the new link: %v", err)
	}
	again := ng.Sent(t, good)
	missing := int64(size) - keptBytes
	checks := int64(runner.Samples*runner.SampleSize) + 1
	t.Logf("kept %d of %d bytes; the new link sent %d (missing %d, checks at most %d): %.3f of the missing",
		keptBytes, size, again, missing, checks, float64(again)/float64(missing))
	if again > missing+checks {
		t.Errorf("the new link sent %d bytes; only %d were missing (+%d for checks)", again, missing, checks)
	}
	if keptBytes <= 0 || again < missing {
		t.Errorf("kept %d, sent %d of %d missing: the test proves nothing", keptBytes, again, missing)
	}
}
