package queue

import (
	"slices"
	"testing"
	"time"

	"braid/queue/queuetest"
)

// What a torrent seeded is kept in the database file: the done jobs that
// were seeding are there after a reopen, unless their seeding is paused,
// they are not done, or they were removed; a record for a removed job is
// not made. A file's high priority is kept likewise.
func TestSeededKeptAcrossReopen(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	q, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	var ids []int64
	for _, n := range []string{"a", "b", "c", "d"} {
		id, err := q.Add(NewJob{Source: n, Dest: t.TempDir(), Doc: queuetest.Doc(2, 0, n+"1.bin", n+"2.bin")})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	a, b, d := ids[0], ids[1], ids[3] // ids[2] stays queued
	for _, id := range []int64{a, b, d} {
		if err := q.SetState(id, Done); err != nil {
			t.Fatal(err)
		}
	}
	rec := Seeded{Uploaded: 3 << 20, Time: 90 * time.Second, Active: true}
	for _, id := range ids {
		if err := q.SetSeeded(id, rec); err != nil {
			t.Fatal(err)
		}
	}
	if err := q.SetSeedPaused(b, true); err != nil {
		t.Fatal(err)
	}
	if err := q.SetFile(a, "a2.bin", High(true)); err != nil {
		t.Fatal(err)
	}
	if err := q.SetFile(a, "nothere.bin", High(true)); err == nil {
		t.Error("a file the job does not have got a priority")
	}
	if err := q.Remove(d); err != nil {
		t.Fatal(err)
	}
	if err := q.SetSeeded(d, rec); err != nil {
		t.Fatalf("recording a removed job: %v", err)
	}
	q.Close()

	q = queuetest.Open(t, Open, dir)
	on, err := q.SeedingOn()
	if err != nil || !slices.Equal(on, []int64{a}) {
		t.Fatalf("seeding on: %v %v; want only %d (b paused, c not done, d removed)", on, err, a)
	}
	if got, err := q.Seeded(a); err != nil || got != rec {
		t.Fatalf("seeded: %+v %v", got, err)
	}
	if got, err := q.Seeded(d); err != nil || got != (Seeded{}) {
		t.Fatalf("a removed job's record: %+v %v", got, err)
	}
	high := func() (out []string) {
		j, err := q.Get(a)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range j.Files {
			if f.High {
				out = append(out, f.Name)
			}
		}
		return out
	}
	if got := high(); !slices.Equal(got, []string{"a2.bin"}) {
		t.Fatalf("high files: %v", got)
	}
	if err := q.SetFile(a, "a2.bin", High(false)); err != nil {
		t.Fatal(err)
	}
	if got := high(); len(got) != 0 {
		t.Fatalf("after normal again: %v", got)
	}
}
