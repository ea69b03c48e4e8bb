package queue

import (
	"strings"
	"testing"

	"braid/queue/queuetest"
)

func TestNothingToRun(t *testing.T) {
	t.Parallel()
	q := queuetest.Open(t, Open, t.TempDir())
	if msg := NothingToRun(q); !strings.Contains(msg, "no job is queued") {
		t.Errorf("empty queue: %q", msg)
	}
	id, err := q.Add(NewJob{Source: "a.meta4", Dest: t.TempDir(), Doc: queuetest.Doc(10, 0, "a.bin")})
	if err != nil {
		t.Fatal(err)
	}
	if msg := NothingToRun(q); msg != "" {
		t.Errorf("a queued job: %q, want nothing said", msg)
	}
	if err := q.Pause(id, ""); err != nil {
		t.Fatal(err)
	}
	if msg := NothingToRun(q); !strings.Contains(msg, "1 paused") || !strings.Contains(msg, "resume") {
		t.Errorf("only a paused job: %q, want it counted and how to resume", msg)
	}
}

func TestVerifiedBy(t *testing.T) {
	t.Parallel()
	q := queuetest.Open(t, Open, t.TempDir())
	id, err := q.Add(NewJob{Source: "a.meta4", Dest: t.TempDir(), Doc: queuetest.Doc(10, 0, "a.bin")})
	if err != nil {
		t.Fatal(err)
	}
	if err := q.SetFile(id, "a.bin", Mismatched); err != nil {
		t.Fatal(err)
	}
	if err := q.SetFile(id, "a.bin", VerifiedBy("sha-1 pieces")); err != nil {
		t.Fatal(err)
	}
	j, _ := q.Get(id)
	if f := j.Files[0]; !f.Verified || f.Mismatch || f.Outcome() != "verified (sha-1 piece hashes)" {
		t.Errorf("after SetFile(VerifiedBy): %+v, outcome %q", f, f.Outcome())
	}
}
