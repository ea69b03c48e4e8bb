package bridge

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"braid/engine/metalink"
	"braid/engine/mirrortest"
	"braid/internal/testkit"
	"braid/queue"
	"braid/ui"
)

// TestBadPiecesKeptAcrossARestart: the pieces Verify finds bad stop
// counting as done in the queue, so after a restart the segment map and
// `braid queue list` still say how many are good (not every piece done
// for a file that failed its hash); after a Repair every piece counts
// again.
func TestBadPiecesKeptAcrossARestart(t *testing.T) {
	t.Parallel()
	data := payload(16 * pieceLen)
	m := mirrortest.New(t, data)
	f := describeData(t, "kept.bin", data, m.URL())
	dir := t.TempDir()
	damaged := slices.Clone(data)
	for _, p := range []int{2, 11} {
		damaged[p*pieceLen+1] ^= 0xff
	}
	if err := os.WriteFile(filepath.Join(dir, "kept.bin"), damaged, 0o644); err != nil {
		t.Fatal(err)
	}
	q := openQueue(t)
	qid, err := q.Add(queue.NewJob{Source: "kept.meta4", Dest: dir, Doc: &metalink.Document{Version: 4, Files: []metalink.File{f}}})
	if err != nil {
		t.Fatal(err)
	}
	bits, _, err := q.Pieces(qid, "kept.bin")
	if err != nil {
		t.Fatal(err)
	}
	for i := range bits.Len() {
		bits.Set(i)
	}
	if err := q.SetPieces(qid, "kept.bin", bits); err != nil {
		t.Fatal(err)
	}
	if err := q.SetFile(qid, "kept.bin", queue.VerifiedBy("sha-256")); err != nil {
		t.Fatal(err)
	}
	if _, err := q.Finish(qid); err != nil {
		t.Fatal(err)
	}
	id := ui.JobID(qid)
	summary := func(b *Backend) string {
		t.Helper()
		d, err := b.Detail(id, true)
		if err != nil {
			t.Fatal(err)
		}
		return d.Files[0].Pieces.Summary()
	}
	listed := func() int {
		t.Helper()
		j, err := q.Get(qid)
		if err != nil {
			t.Fatal(err)
		}
		done, _, _, _ := j.Progress()
		return done
	}

	b := newBackend(t, q)
	if err := b.Verify(id); err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, "Verify", func() bool { return len(b.Active()) == 0 })
	if j := jobByID(t, b, id); !j.Mismatch {
		t.Fatalf("after Verify of a damaged file: %+v", j)
	}
	if s := summary(b); !strings.HasPrefix(s, "14 of 16 pieces done") || !strings.Contains(s, "2 failed the hash") {
		t.Errorf("this session's segment map says %q", s)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}

	again := newBackend(t, q) // a restart
	if s := summary(again); !strings.HasPrefix(s, "14 of 16 pieces done") {
		t.Errorf("after a restart the segment map says %q", s)
	}
	if n := listed(); n != 14 {
		t.Errorf("after Verify the queue counts %d pieces done, want 14", n)
	}
	if err := again.Start(false); err != nil {
		t.Fatal(err)
	}
	if err := again.Repair(id); err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, "Repair", func() bool {
		j := jobByID(t, again, id)
		return len(again.Active()) == 0 && j.State == ui.Done
	})
	if s := summary(newBackend(t, q)); !strings.HasPrefix(s, "16 of 16 pieces done") {
		t.Errorf("after the repair and a restart the segment map says %q", s)
	}
	if n := listed(); n != 16 {
		t.Errorf("after the repair the queue counts %d pieces done, want 16", n)
	}
}
