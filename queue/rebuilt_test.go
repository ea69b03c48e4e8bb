package queue

import (
	"testing"

	"braid/engine"
	"braid/queue/queuetest"
)

// How many pieces of a file parity rebuilt is kept with how the file was
// verified: read back by Get and List after a close and reopen, and set
// again (to none) by a later download that landed it.
func TestRebuiltKept(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	q, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	id, err := q.Add(NewJob{Source: "http://x.example/r.meta4", Dest: t.TempDir(), Doc: queuetest.Doc(1<<20, 0, "a.bin", "b.bin")})
	if err != nil {
		t.Fatal(err)
	}
	if err := q.Landed(id, "a.bin", &engine.Snapshot{State: engine.StateDone, VerifiedBy: "sha-256", Rebuilt: 3, Size: 1 << 20}); err != nil {
		t.Fatal(err)
	}
	if err := q.Landed(id, "b.bin", &engine.Snapshot{State: engine.StateDone, VerifiedBy: "sha-256", Size: 1 << 20}); err != nil {
		t.Fatal(err)
	}
	if err := q.Close(); err != nil {
		t.Fatal(err)
	}
	q = queuetest.Open(t, Open, dir)
	want := map[string]int{"a.bin": 3, "b.bin": 0}
	check := func(when string, files []File) {
		t.Helper()
		if len(files) != len(want) {
			t.Fatalf("%s: %d files, want %d", when, len(files), len(want))
		}
		for _, f := range files {
			if f.Rebuilt != want[f.Name] || !f.Verified || f.VerifiedBy != "sha-256" {
				t.Errorf("%s: %s verified %v by %q, %d pieces rebuilt; want by sha-256, %d rebuilt", when, f.Name, f.Verified, f.VerifiedBy, f.Rebuilt, want[f.Name])
			}
		}
	}
	j, err := q.Get(id)
	if err != nil {
		t.Fatal(err)
	}
	check("Get after a reopen", j.Files)
	jobs, err := q.List()
	if err != nil || len(jobs) != 1 {
		t.Fatalf("List: %d jobs, %v", len(jobs), err)
	}
	check("List after a reopen", jobs[0].Files)

	// Downloaded again, every piece from a mirror: none rebuilt.
	if err := q.Landed(id, "a.bin", &engine.Snapshot{State: engine.StateDone, VerifiedBy: "sha-256", Size: 1 << 20}); err != nil {
		t.Fatal(err)
	}
	want["a.bin"] = 0
	if j, err = q.Get(id); err != nil {
		t.Fatal(err)
	}
	check("Get after a download again", j.Files)
}
