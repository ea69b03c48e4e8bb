package queue

import (
	"errors"
	"testing"

	"braid/queue/queuetest"
)

// The bytes a pause keeps inside unfinished pieces count in the job's
// progress, across a reopen, until pieces are recorded or reset.
func TestKeptBytes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	q := queuetest.Open(t, Open, dir)
	const size = 5<<20 + 7
	id, err := q.Add(NewJob{Source: "k.meta4", Dest: t.TempDir(), Doc: queuetest.Doc(size, 0, "k.bin")})
	if err != nil {
		t.Fatal(err)
	}
	progress := func(q *Queue) int64 {
		t.Helper()
		j, err := q.Get(id)
		if err != nil {
			t.Fatal(err)
		}
		_, _, doneBytes, _ := j.Progress()
		return doneBytes
	}
	j := q.Journal(id)
	if err := j.PiecesDone("k.bin", []int{0}); err != nil {
		t.Fatal(err)
	}
	if err := j.KeptBytes("k.bin", 300<<10); err != nil {
		t.Fatal(err)
	}
	if got, want := progress(q), int64(1<<20+300<<10); got != want {
		t.Fatalf("progress %d bytes, want %d (a piece and the bytes kept)", got, want)
	}
	q.Close()
	q = queuetest.Open(t, Open, dir)
	j = q.Journal(id)
	if got, want := progress(q), int64(1<<20+300<<10); got != want {
		t.Fatalf("after a reopen: progress %d bytes, want %d", got, want)
	}
	// A run records pieces: the kept bytes are its to show now.
	if err := j.PiecesDone("k.bin", []int{1}); err != nil {
		t.Fatal(err)
	}
	if got, want := progress(q), int64(2<<20); got != want {
		t.Fatalf("after pieces were recorded: progress %d bytes, want %d", got, want)
	}
	if err := j.KeptBytes("k.bin", 100); err != nil {
		t.Fatal(err)
	}
	if err := j.Reset("k.bin"); err != nil {
		t.Fatal(err)
	}
	if got := progress(q); got != 0 {
		t.Fatalf("after a reset: progress %d bytes, want 0", got)
	}
	if err := j.KeptBytes("nope.bin", 1); !errors.Is(err, ErrNotFound) {
		t.Fatalf("KeptBytes of a file the job has not: %v, want ErrNotFound", err)
	}
	// Never more than the file.
	if err := q.Journal(id).KeptBytes("k.bin", 2*size); err != nil {
		t.Fatal(err)
	}
	if got := progress(q); got != size {
		t.Fatalf("progress %d bytes of a file of %d", got, size)
	}
}
