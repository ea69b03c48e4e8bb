package queue

import (
	"errors"
	"testing"

	"braid/queue/queuetest"
)

// A paused seeding is kept in the database file: it is there after the
// queue is closed and opened again, gone once resumed, and gone with its
// job.
func TestSeedPausedKeptAcrossReopen(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	q, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	a, err := q.Add(NewJob{Source: "a", Dest: t.TempDir(), Doc: queuetest.Doc(1, 0, "a.bin")})
	if err != nil {
		t.Fatal(err)
	}
	b, err := q.Add(NewJob{Source: "b", Dest: t.TempDir(), Doc: queuetest.Doc(1, 0, "b.bin")})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []int64{a, b} {
		if err := q.SetSeedPaused(id, true); err != nil {
			t.Fatal(err)
		}
	}
	if err := q.SetSeedPaused(a, true); err != nil { // twice: no harm
		t.Fatal(err)
	}
	q.Close()

	q = queuetest.Open(t, Open, dir)
	got, err := q.SeedPaused()
	if err != nil || !got[a] || !got[b] || len(got) != 2 {
		t.Fatalf("after reopening: %v, %v", got, err)
	}
	if err := q.SetSeedPaused(a, false); err != nil {
		t.Fatal(err)
	}
	if err := q.Remove(b); err != nil {
		t.Fatal(err)
	}
	if got, err := q.SeedPaused(); err != nil || len(got) != 0 {
		t.Fatalf("after resuming one and removing the other: %v, %v", got, err)
	}
}

// A file is deselected and selected again; the last selected file stays.
func TestSetFileSelected(t *testing.T) {
	t.Parallel()
	q := queuetest.Open(t, Open, t.TempDir())
	id, err := q.Add(NewJob{Source: "t", Dest: t.TempDir(), Doc: queuetest.Doc(1, 0, "x/a.bin", "x/b.bin")})
	if err != nil {
		t.Fatal(err)
	}
	selected := func() map[string]bool {
		j, err := q.Get(id)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]bool{}
		for _, f := range j.Files {
			out[f.Name] = f.Selected
		}
		return out
	}
	if err := q.SetFileSelected(id, "x/b.bin", false); err != nil {
		t.Fatal(err)
	}
	if s := selected(); !s["x/a.bin"] || s["x/b.bin"] {
		t.Fatalf("after skipping b: %v", s)
	}
	if err := q.SetFileSelected(id, "x/a.bin", false); !errors.Is(err, ErrLastFile) {
		t.Fatalf("skipping the last file: %v", err)
	}
	if err := q.SetFileSelected(id, "x/nope.bin", true); err == nil {
		t.Fatal("a file the job does not have was selected")
	}
	if err := q.SetFileSelected(id, "x/b.bin", true); err != nil {
		t.Fatal(err)
	}
	if s := selected(); !s["x/a.bin"] || !s["x/b.bin"] {
		t.Fatalf("after fetching b again: %v", s)
	}
}
