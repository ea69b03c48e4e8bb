package bridge

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"braid/engine/torrent/torrenttest"
	"braid/internal/testkit"
	"braid/queue"
	"braid/ui"
)

// The files of a torrent that is not running are chosen in the Files tab
// too: a paused torrent lists its skipped file, which can be selected and
// given a high priority (kept in the queue) while another is skipped,
// and Resume fetches what was chosen; a done torrent lists its skipped
// file as choosable and its fetched one as not, and selecting the
// skipped one pauses the job, whose Resume fetches it, leaving the file
// it had as it was.
func TestChooseFilesOfAPausedAndADoneTorrent(t *testing.T) {
	t.Parallel()
	src := t.TempDir()
	a, b2 := payload(256<<10), payload(320<<10+17)
	mi := torrenttest.Make(t, src, "pair", 64<<10, []torrenttest.File{{Path: "a.bin", Data: a}, {Path: "b.bin", Data: b2}})
	peer := torrenttest.Seed(t, src, mi)
	magnet := fmt.Sprintf("magnet:?xt=urn:btih:%s&dn=pair&x.pe=%s", mi.HashInfoBytes().HexString(), peer)

	q := torrentQueue(t, 0)
	b := startedBackend(t, q)
	var _ ui.FilePrioritizer = b
	doc := openDoc(t, b, magnet)
	dest := t.TempDir()
	id, err := b.Add(context.Background(), ui.AddRequest{Source: magnet, Doc: doc, Files: []string{"pair/a.bin"}, Dir: dest, Paused: true})
	if err != nil {
		t.Fatal(err)
	}
	files := func() map[string]ui.FileDetail {
		t.Helper()
		d, err := b.Detail(id, false)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]ui.FileDetail{}
		for _, f := range d.Files {
			out[f.Name] = f
		}
		return out
	}
	fs := files()
	if f := fs["pair/b.bin"]; len(fs) != 2 || !f.Skipped || !f.Choosable || !fs["pair/a.bin"].Choosable {
		t.Fatalf("a paused torrent's files: %+v", fs)
	}
	if err := b.SetFileWanted(id, "pair/b.bin", true); err != nil {
		t.Fatal(err)
	}
	if err := b.SetFilePriority(id, "pair/b.bin", true); err != nil {
		t.Fatal(err)
	}
	if err := b.SetFileWanted(id, "pair/a.bin", false); err != nil {
		t.Fatal(err)
	}
	fs = files()
	if f := fs["pair/b.bin"]; f.Skipped || !f.High || !fs["pair/a.bin"].Skipped {
		t.Fatalf("after choosing b.bin, high, and skipping a.bin: %+v", fs)
	}
	if j, err := q.Get(int64(id)); err != nil || !slices.ContainsFunc(j.Files, func(f queue.File) bool { return f.Name == "pair/b.bin" && f.High }) {
		t.Fatalf("the queue's files: %+v %v; want pair/b.bin high", j.Files, err)
	}
	if err := b.Resume(id); err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, "the job to be done", func() bool { return jobByID(t, b, id).State == ui.Done })
	bPath, aPath := filepath.Join(dest, "pair", "b.bin"), filepath.Join(dest, "pair", "a.bin")
	if got, err := os.ReadFile(bPath); err != nil || !bytes.Equal(got, b2) {
		t.Fatalf("b.bin: %v", err)
	}
	if _, err := os.Stat(aPath); !os.IsNotExist(err) {
		t.Fatalf("the skipped a.bin is there: %v", err)
	}

	// Done: only the skipped file can be chosen.
	fs = files()
	if len(fs) != 2 || !fs["pair/a.bin"].Skipped || !fs["pair/a.bin"].Choosable || fs["pair/b.bin"].Choosable {
		t.Fatalf("a done torrent's files: %+v", fs)
	}
	before, err := os.Stat(bPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.SetFileWanted(id, "pair/a.bin", true); err != nil {
		t.Fatal(err)
	}
	if j := jobByID(t, b, id); j.State != ui.Paused || !j.State.Resumable() {
		t.Fatalf("a done torrent with a file to fetch shows %v", j.State)
	}
	if err := b.Resume(id); err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, "the job to be done again", func() bool { return jobByID(t, b, id).State == ui.Done })
	if got, err := os.ReadFile(aPath); err != nil || !bytes.Equal(got, a) {
		t.Fatalf("a.bin fetched on resume: %v", err)
	}
	if after, err := os.Stat(bPath); err != nil || !after.ModTime().Equal(before.ModTime()) {
		t.Errorf("b.bin was written again: %v", err)
	}
}
