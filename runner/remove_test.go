package runner

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"braid/engine"
	"braid/queue"
	"braid/queue/queuetest"
)

// TestRemoveWithFiles removes jobs with and without their files: the
// files a job wrote and its .part files go, a file that was there before
// the job (proven by its hash) and the files of a job removed alone stay,
// a folder already gone is fine, and a stored name cannot reach outside
// the destination.
func TestRemoveWithFiles(t *testing.T) {
	t.Parallel()
	q := queuetest.Open(t, queue.Open, t.TempDir())
	dest := t.TempDir()
	write := func(name string) {
		t.Helper()
		p := filepath.Join(dest, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	exists := func(name string) bool {
		_, err := os.Stat(filepath.Join(dest, filepath.FromSlash(name)))
		return err == nil
	}
	for _, n := range []string{"keep/a.iso", "keep/a.iso.part", "gone/b.iso", "gone/b.iso.part", "gone/other", "found/c.iso"} {
		write(n)
	}
	keep, err := q.Add(queue.NewJob{Source: "k", Dest: dest, Doc: queuetest.Doc(1, 0, "keep/a.iso")})
	if err != nil {
		t.Fatal(err)
	}
	gone, err := q.Add(queue.NewJob{Source: "g", Dest: dest, Doc: queuetest.Doc(1, 0, "gone/b.iso")})
	if err != nil {
		t.Fatal(err)
	}
	if err := q.Landed(gone, "gone/b.iso", &engine.Snapshot{SavedAs: "gone/b.iso", Created: true}); err != nil {
		t.Fatal(err)
	}
	// A file that was at its name already, proven by its hash: the job
	// did not write it, so removing the job with its files keeps it.
	found, err := q.Add(queue.NewJob{Source: "f", Dest: dest, Doc: queuetest.Doc(1, 0, "found/c.iso")})
	if err != nil {
		t.Fatal(err)
	}
	if err := q.Landed(found, "found/c.iso", &engine.Snapshot{SavedAs: "found/c.iso", VerifiedBy: "sha-256"}); err != nil {
		t.Fatal(err)
	}
	if err := q.Remove(keep); err != nil {
		t.Fatal(err)
	}
	if _, err := RemoveWithFiles(q, gone); err != nil {
		t.Fatal(err)
	}
	if _, err := RemoveWithFiles(q, found); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]bool{
		"keep/a.iso": true, "keep/a.iso.part": true, "gone/b.iso": false, "gone/b.iso.part": false, "gone/other": true,
		"found/c.iso": true,
	} {
		if exists(name) != want {
			t.Errorf("%s exists = %v, want %v", name, !want, want)
		}
	}
	if jobs, _ := q.List(); len(jobs) != 0 {
		t.Errorf("%d jobs left", len(jobs))
	}
	if _, err := RemoveWithFiles(q, gone); !errors.Is(err, queue.ErrNotFound) {
		t.Errorf("second Remove: %v", err)
	}

	t.Run("files already gone", func(t *testing.T) {
		id, err := q.Add(queue.NewJob{Source: "v", Dest: filepath.Join(dest, "vanished"), Doc: queuetest.Doc(1, 0, "x")})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := RemoveWithFiles(q, id); err != nil {
			t.Error(err)
		}
	})
	t.Run("a hostile name stays inside", func(t *testing.T) {
		// The metalink reader refuses such names; the queue does not
		// rely on it.
		outside := filepath.Join(filepath.Dir(dest), "outside.txt")
		if err := os.WriteFile(outside, []byte("precious"), 0o644); err != nil {
			t.Fatal(err)
		}
		id, err := q.Add(queue.NewJob{Source: "h", Dest: dest, Doc: queuetest.Doc(1, 0, "../outside.txt")})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := RemoveWithFiles(q, id); err == nil {
			t.Error("Remove with files of ../outside.txt did not fail")
		}
		if _, err := os.Stat(outside); err != nil {
			t.Errorf("a file outside the destination was deleted: %v", err)
		}
		if _, err := q.Get(id); err != nil {
			t.Errorf("the job is gone though its files were not deleted: %v", err)
		}
	})
}

// TestRemoveWithFilesSaysWhatItDeleted removes jobs with their files and
// checks that the paths it names are the ones gone from the disk: the
// .part of an unfinished file, the finished file the job wrote, and
// neither a file that was there before the job nor one already gone.
func TestRemoveWithFilesSaysWhatItDeleted(t *testing.T) {
	t.Parallel()
	q := queuetest.Open(t, queue.Open, t.TempDir())
	dest := t.TempDir()
	write := func(name string) {
		t.Helper()
		p := filepath.Join(dest, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(name), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, n := range []string{"a.iso.part", "b/b.iso", "b/b.iso.part", "c.iso"} {
		write(n)
	}
	part, err := q.Add(queue.NewJob{Source: "a", Dest: dest, Doc: queuetest.Doc(1, 0, "a.iso")})
	if err != nil {
		t.Fatal(err)
	}
	wrote, err := q.Add(queue.NewJob{Source: "b", Dest: dest, Doc: queuetest.Doc(1, 0, "b/b.iso", "b/never.iso")})
	if err == nil {
		err = q.Landed(wrote, "b/b.iso", &engine.Snapshot{SavedAs: "b/b.iso", Created: true})
	}
	if err != nil {
		t.Fatal(err)
	}
	found, err := q.Add(queue.NewJob{Source: "c", Dest: dest, Doc: queuetest.Doc(1, 0, "c.iso")})
	if err == nil {
		err = q.Landed(found, "c.iso", &engine.Snapshot{SavedAs: "c.iso", VerifiedBy: "sha-256"})
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		id   int64
		want []string
	}{
		{part, []string{"a.iso.part"}},
		{wrote, []string{"b/b.iso.part", "b/b.iso"}},
		{found, nil},
	} {
		got, err := RemoveWithFiles(q, tt.id)
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		for _, n := range tt.want {
			want = append(want, filepath.Join(dest, filepath.FromSlash(n)))
		}
		if !slices.Equal(got, want) {
			t.Errorf("job %d: deleted %q, want %q", tt.id, got, want)
		}
		for _, p := range got {
			if _, err := os.Stat(p); !os.IsNotExist(err) {
				t.Errorf("%s is named deleted and is on the disk: %v", p, err)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(dest, "c.iso")); err != nil {
		t.Errorf("a file that was there before its job was deleted: %v", err)
	}
	if jobs, _ := q.List(); len(jobs) != 0 {
		t.Errorf("%d jobs left", len(jobs))
	}
}
