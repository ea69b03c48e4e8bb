package bridge

import (
	"context"
	"testing"

	"braid/engine/metalink"
	"braid/engine/mirrortest"
	"braid/internal/testkit"
	"braid/ui"
)

// TestFinishedFileAfterARestart: a job of two files, one finished and one
// half way, is stopped with the window and run again by a new one. From
// the first look after the restart, while the other file downloads, the
// finished file's row in the Files tab says it is verified and whole
// (not "Downloading" at what it had once), and the job's bytes count it.
func TestFinishedFileAfterARestart(t *testing.T) {
	t.Parallel()
	fast, slow := payload(8*pieceLen), payload(16*pieceLen)
	mf := mirrortest.New(t, fast)
	ms := mirrortest.New(t, slow, mirrortest.Addr("127.0.0.2"), mirrortest.Rate(128<<10))
	doc := &metalink.Document{Version: 4, Files: []metalink.File{
		describeData(t, "first.bin", fast, mf.URL()),
		describeData(t, "second.bin", slow, ms.URL()),
	}}
	q := openQueue(t)
	b := newBackend(t, q)
	if err := b.Start(false); err != nil {
		t.Fatal(err)
	}
	id, err := b.Add(context.Background(), ui.AddRequest{Source: "two.meta4", Doc: doc, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, "the first file to finish and the second to start", func() bool {
		j, err := q.Get(int64(id))
		if err != nil || len(j.Files) != 2 {
			return false
		}
		return j.Files[0].Verified && j.Files[1].Done > 0 && !j.Files[1].Verified
	})
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}

	again := newBackend(t, q)
	if err := again.Start(false); err != nil {
		t.Fatal(err)
	}
	if j := jobByID(t, again, id); j.State == ui.Queued || j.State == ui.Paused {
		if err := again.Resume(id); err != nil {
			t.Fatal(err)
		}
	}
	checked := 0
	testkit.WaitFor(t, "the job to end", func() bool {
		d, err := again.Detail(id, false)
		if err != nil {
			t.Fatal(err)
		}
		if d.State == ui.Running && len(d.Files) == 2 {
			checked++
			f := d.Files[0]
			if f.State != ui.FileVerified || f.Done != int64(len(fast)) {
				t.Fatalf("while the second file downloads, the finished one shows %v with %d of %d bytes", f.State, f.Done, len(fast))
			}
			if d.Done < int64(len(fast)) {
				t.Fatalf("the job counts %d bytes, fewer than its finished file's %d", d.Done, len(fast))
			}
		}
		return d.State == ui.Done
	})
	if checked == 0 {
		t.Error("never saw the job running after the restart: nothing was checked")
	}
}
