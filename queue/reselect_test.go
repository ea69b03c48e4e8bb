package queue

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"braid/engine"
	"braid/engine/metalink"
	"braid/engine/piece"
	"braid/queue/queuetest"
)

// TestPrepareFinishFile follows `braid get --state` through a download
// that is interrupted, resumed, changed and finished.
func TestPrepareFinishFile(t *testing.T) {
	t.Parallel()
	state, dest := t.TempDir(), t.TempDir()
	q := queuetest.Open(t, Open, state)
	const src = "http://example.com/x.meta4"
	doc := queuetest.Doc(4<<20, 1<<20, "a.bin", "b.bin")
	a, b := doc.Files[0], doc.Files[1]

	id, done, err := prepareFile(q, src, dest, a, Origin{})
	if err != nil || done != nil {
		t.Fatalf("first prepareFile: %v, done %v", err, done)
	}
	j, _ := q.Get(id)
	if j.State != Running || len(j.Files) != 1 || j.Doc.Files[0].Name != "a.bin" {
		t.Fatalf("new job: %s, %d files", j.State, len(j.Files))
	}
	// Half the file done and synced, then Ctrl-C.
	if err := os.WriteFile(filepath.Join(dest, "a.bin.part"), make([]byte, 4<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := q.Journal(id).PiecesDone("a.bin", []int{0, 1}); err != nil {
		t.Fatal(err)
	}
	if err := q.FinishFile(id, "a.bin", nil, fmt.Errorf("a.bin: %w", context.Canceled)); err != nil {
		t.Fatal(err)
	}
	if j, _ := q.Get(id); j.State != Paused {
		t.Errorf("interrupted job is %s, want paused", j.State)
	}

	// get again: the same job, resumed from the journal.
	id2, done, err := prepareFile(q, src, dest, a, Origin{})
	if err != nil || id2 != id || done == nil || done.Count() != 2 || !done.Has(0) || !done.Has(1) {
		t.Fatalf("second prepareFile: job %d (want %d), done %v, %v", id2, id, done, err)
	}

	// The document changed under the same name: nothing recorded holds.
	changed := a
	changed.Hashes = nil
	changed.Size = 3 << 20
	changed.Pieces = nil
	if _, done, err := prepareFile(q, src, dest, changed, Origin{}); err != nil || done != nil {
		t.Fatalf("prepareFile of a changed file: done %v, %v", done, err)
	}
	if j, _ := q.Get(id); j.Files[0].Size != 3<<20 || j.Files[0].Done != 0 || j.Doc.Files[0].Size != 3<<20 {
		t.Errorf("changed file stored as size %d with %d pieces done", j.Files[0].Size, j.Files[0].Done)
	}

	// Another file of the same source joins the job.
	if id3, _, err := prepareFile(q, src, dest, b, Origin{}); err != nil || id3 != id {
		t.Fatalf("prepareFile of a second file: job %d, %v", id3, err)
	}
	if err := q.FinishFile(id, "a.bin", &engine.Snapshot{SavedAs: "a.bin", Created: true, VerifiedBy: "sha-256"}, nil); err != nil {
		t.Fatal(err)
	}
	if j, _ := q.Get(id); j.State != Running || !j.Files[0].Verified || len(j.Files) != 2 {
		t.Errorf("after the first file: %s, verified %v, %d files", j.State, j.Files[0].Verified, len(j.Files))
	}
	if err := q.FinishFile(id, "b.bin", &engine.Snapshot{SavedAs: "b.bin", Created: true, VerifiedBy: "sha-256"}, nil); err != nil {
		t.Fatal(err)
	}
	if j, _ := q.Get(id); j.State != Done {
		t.Errorf("after both files: %s, want done", j.State)
	}

	t.Run("failure", func(t *testing.T) {
		if _, _, err := prepareFile(q, src, dest, b, Origin{}); err != nil {
			t.Fatal(err)
		}
		if err := q.FinishFile(id, "b.bin", nil, errors.New("no usable mirror left")); err != nil {
			t.Fatal(err)
		}
		if j, _ := q.Get(id); j.State != Failed || j.Error != "no usable mirror left" {
			t.Errorf("job is %s %q, want failed", j.State, j.Error)
		}
	})
	t.Run("paused with a reason", func(t *testing.T) {
		// The runner makes a vanished destination a PauseError.
		gone := filepath.Join(t.TempDir(), "gone")
		id, _, err := prepareFile(q, src, gone, a, Origin{})
		if err != nil {
			t.Fatal(err)
		}
		cause := PauseError("the destination folder "+gone+" no longer exists", &fs.PathError{Op: "open", Path: gone, Err: fs.ErrNotExist})
		if err := q.FinishFile(id, "a.bin", nil, cause); err != nil {
			t.Fatal(err)
		}
		if j, _ := q.Get(id); j.State != Paused || j.Error != "the destination folder "+gone+" no longer exists" {
			t.Errorf("job is %s %q, want paused because the folder is gone", j.State, j.Error)
		}
		if !errors.Is(cause, ErrPaused) || !errors.Is(cause, fs.ErrNotExist) {
			t.Errorf("PauseError %v wraps neither ErrPaused nor its cause", cause)
		}
	})
	t.Run("running in another process", func(t *testing.T) {
		other := queuetest.Open(t, Open, state)
		if other.Owner() {
			t.Fatal("second Open owns the queue")
		}
		id, _, err := prepareFile(q, "busy", dest, a, Origin{})
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := prepareFile(other, "busy", dest, a, Origin{}); !errors.Is(err, ErrNotOwner) {
			t.Errorf("prepareFile of a job the owner runs: %v, want ErrNotOwner", err)
		}
		if j, _ := q.Get(id); j.State != Running {
			t.Errorf("job is %s", j.State)
		}
	})
}

// prepareFile is PrepareFiles of one file, as braid get starts it.
func prepareFile(q *Queue, source, dest string, f metalink.File, origin Origin) (int64, *piece.Bitfield, error) {
	id, done, err := q.PrepareFiles(source, dest, nil, []metalink.File{f}, origin)
	if err != nil {
		return 0, nil, err
	}
	return id, done[0], nil
}

// A job get prepares from a dynamic metalink keeps where a fresh copy of
// the document lives, so that a later run of the job (braid queue run,
// the window) refreshes it as get does; only the selected files are kept.
func TestPrepareFilesKeepsTheDocumentsOrigin(t *testing.T) {
	t.Parallel()
	q := queuetest.Open(t, Open, t.TempDir())
	doc := queuetest.Doc(4<<10, 1<<10, "a.bin", "b.bin")
	doc.Origin, doc.Dynamic, doc.Generator = "https://example.com/live.meta4", true, "mirrorbrain"
	id, _, err := q.PrepareFiles("https://example.com/live.meta4", t.TempDir(), doc, doc.Files[:1], Origin{})
	if err != nil {
		t.Fatal(err)
	}
	j, err := q.Get(id)
	if err != nil {
		t.Fatal(err)
	}
	if !j.Doc.Dynamic || j.Doc.Origin != doc.Origin || j.Doc.Generator != doc.Generator {
		t.Errorf("stored document: dynamic %v, origin %q, generator %q; want the document's", j.Doc.Dynamic, j.Doc.Origin, j.Doc.Generator)
	}
	if len(j.Doc.Files) != 1 || j.Doc.Files[0].Name != "a.bin" {
		t.Errorf("stored files %v, want only a.bin", j.Doc.Files)
	}
}
