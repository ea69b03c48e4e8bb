package queue

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
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
	if err := finishFile(q, id, "a.bin", nil, fmt.Errorf("a.bin: %w", context.Canceled)); err != nil {
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
	if err := finishFile(q, id, "a.bin", &engine.Snapshot{SavedAs: "a.bin", Created: true, VerifiedBy: "sha-256"}, nil); err != nil {
		t.Fatal(err)
	}
	if j, _ := q.Get(id); j.State != Running || !j.Files[0].Verified || len(j.Files) != 2 {
		t.Errorf("after the first file: %s, verified %v, %d files", j.State, j.Files[0].Verified, len(j.Files))
	}
	if err := finishFile(q, id, "b.bin", &engine.Snapshot{SavedAs: "b.bin", Created: true, VerifiedBy: "sha-256"}, nil); err != nil {
		t.Fatal(err)
	}
	if j, _ := q.Get(id); j.State != Done {
		t.Errorf("after both files: %s, want done", j.State)
	}

	t.Run("failure", func(t *testing.T) {
		if _, _, err := prepareFile(q, src, dest, b, Origin{}); err != nil {
			t.Fatal(err)
		}
		if err := finishFile(q, id, "b.bin", nil, errors.New("no usable mirror left")); err != nil {
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
		if err := finishFile(q, id, "a.bin", nil, cause); err != nil {
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
		// Another process cannot take it, from whatever state a face
		// would take its own jobs (runner.RunJobs).
		if ok, err := other.Claim(id, Queued, Paused, Failed, Done); ok || err != nil {
			t.Errorf("another process claimed a job the owner runs: %v, %v", ok, err)
		}
		if j, _ := q.Get(id); j.State != Running {
			t.Errorf("job is %s", j.State)
		}
	})
}

// prepareFile is what braid get does with one file of source before its
// download: the job of source found, given the file (Reselect), or added
// with it; claimed; and the pieces recorded for the file read.
func prepareFile(q *Queue, source, dest string, f metalink.File, origin Origin) (int64, *piece.Bitfield, error) {
	id, found, err := q.JobFor(source, dest)
	if err != nil {
		return 0, nil, err
	}
	if found {
		err = q.Reselect(id, []metalink.File{f}, origin, Unselect)
	} else {
		id, err = q.Add(NewJob{Source: source, Dest: dest, Doc: &metalink.Document{Version: 4, Files: []metalink.File{f}}, Origin: origin, Paused: true})
	}
	if err != nil {
		return 0, nil, err
	}
	if ok, err := q.Claim(id, Queued, Paused, Failed, Done, Running); err != nil || !ok {
		return 0, nil, fmt.Errorf("claim job %d (%v): %w", id, ok, err)
	}
	done, err := q.RecordedPieces(id, f)
	return id, done, err
}

// finishFile records how a file's download ended as the runner does: a
// file that landed, and the job done with its last; an interruption
// pauses it, a PauseError pauses it with its reason, another error fails
// it.
func finishFile(q *Queue, id int64, name string, snap *engine.Snapshot, cause error) error {
	if cause == nil {
		if err := q.Landed(id, name, snap); err != nil {
			return err
		}
		j, err := q.Get(id)
		if err != nil {
			return err
		}
		for _, f := range j.Files {
			if f.Selected && !f.Verified {
				return nil
			}
		}
		_, err = q.Finish(id)
		return err
	}
	if reason, ok := PauseReason(cause); ok {
		return q.Pause(id, reason)
	}
	if errors.Is(cause, context.Canceled) {
		return q.Pause(id, "")
	}
	return q.Fail(id, cause)
}

// Reselect makes the files given the job's selection: those stored the
// same keep their pieces, a new one joins, and the others are unselected
// but kept, with their pieces, for a later selection.
func TestReselect(t *testing.T) {
	t.Parallel()
	q := queuetest.Open(t, Open, t.TempDir())
	doc := queuetest.Doc(4<<10, 1<<10, "a.bin", "b.bin", "c.bin")
	id, err := q.Add(NewJob{Source: "x.meta4", Dest: t.TempDir(), Doc: &metalink.Document{Version: 4, Files: doc.Files[:2]}})
	if err != nil {
		t.Fatal(err)
	}
	if err := q.Journal(id).PiecesDone("b.bin", []int{0, 1}); err != nil {
		t.Fatal(err)
	}
	if err := q.Reselect(id, []metalink.File{doc.Files[0], doc.Files[2]}, Origin{}, Unselect); err != nil {
		t.Fatal(err)
	}
	j, err := q.Get(id)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, f := range j.Files {
		got[f.Name] = f.Selected
	}
	if want := map[string]bool{"a.bin": true, "b.bin": false, "c.bin": true}; !maps.Equal(got, want) {
		t.Fatalf("selection after Reselect: %v, want %v", got, want)
	}
	if err := q.Reselect(id, doc.Files[1:2], Origin{}, Unselect); err != nil {
		t.Fatal(err)
	}
	b, err := q.RecordedPieces(id, doc.Files[1])
	if err != nil || b == nil || b.Count() != 2 {
		t.Fatalf("b.bin selected again: recorded pieces %v (%v), want the 2 it had", b, err)
	}
	if err := q.Reselect(id+1, doc.Files[:1], Origin{}, Unselect); !errors.Is(err, ErrNotFound) {
		t.Errorf("Reselect of a job that is not there: %v, want ErrNotFound", err)
	}

	// Drop: the files not given go from the job and its document.
	if err := q.Reselect(id, doc.Files[2:3], Origin{}, Drop); err != nil {
		t.Fatal(err)
	}
	if j, err := q.Get(id); err != nil || len(j.Files) != 1 || j.Files[0].Name != "c.bin" || len(j.Doc.Files) != 1 || j.Doc.Files[0].Name != "c.bin" {
		t.Fatalf("after Drop: files %v, document %v (%v); want c.bin alone", j.Files, j.Doc.Files, err)
	}
}
