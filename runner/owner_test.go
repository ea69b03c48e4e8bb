package runner

import (
	"context"
	"errors"
	"testing"

	"braid/queue"
	"braid/queue/queuetest"
)

func TestOwnershipPassesOn(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	first, err := queue.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	second := queuetest.Open(t, queue.Open, dir)
	if !first.Owner() || second.Owner() {
		t.Fatalf("owners: first %v, second %v", first.Owner(), second.Owner())
	}
	id, err := second.Add(queue.NewJob{Source: "s", Dest: t.TempDir(), Doc: queuetest.Doc(1, 0, "f")})
	if err != nil {
		t.Fatal(err)
	}
	if err := runner(second).Run(context.Background()); !errors.Is(err, queue.ErrNotOwner) {
		t.Errorf("Run while another process owns the queue: %v, want ErrNotOwner", err)
	}
	if j, _ := second.Get(id); j.State != queue.Queued {
		t.Errorf("the job is %s: Run took it though another process owns the queue", j.State)
	}
	first.Close()
	if !second.TryOwn() || !second.Owner() {
		t.Error("ownership did not pass on when the owner closed")
	}
	third := queuetest.Open(t, queue.Open, dir)
	if third.Owner() {
		t.Error("a third queue.Open owns the queue too")
	}
}
