package queue

import (
	"os"
	"testing"
	"time"

	"braid/queue/queuetest"
)

// Windows may keep a dead process's file lock for a while ("depending on
// available system resources"); Wine 8 lets TerminateProcess's locks go at
// once, but a Braid killed as a Unix process (kill -9) kept its lock for
// about a minute. Here the test process holds the killed owner's lock, as
// the system would: the next Open must still take over at once, and a
// live owner after it must be respected.
func TestDeadOwnersLockStillHeld(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	q := queuetest.Open(t, Open, dir)
	if _, err := q.Add(NewJob{Source: "src", Dest: t.TempDir(), Doc: queuetest.Doc(10, 0, "f")}); err != nil {
		t.Fatal(err)
	}
	q.Close()

	child := startOwner(t, dir)
	if err := child.Process.Kill(); err != nil { // TerminateProcess
		t.Fatal(err)
	}
	_ = child.Wait()
	if r := readOwner(dir); r.PID != child.Process.Pid || !r.gone() {
		t.Fatalf("the owner's record is %+v; want the killed child %d, gone", r, child.Process.Pid)
	}
	var system Queue // holds the lock the dead owner's system kept
	if got, err := system.lockFile(lockPath(dir, 0)); !got || err != nil {
		t.Fatalf("the killed owner's lock: %v, %v", got, err)
	}
	defer system.closeLock()

	start := time.Now()
	q, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !q.Owner() {
		t.Fatal("Open does not own the queue while the dead owner's lock is held")
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("taking over took %v", took)
	}
	if s, err := q.StateOf(1); err != nil || s != Queued {
		t.Errorf("the dead owner's running job is %s, %v; want queued", s, err)
	}
	if r := readOwner(dir); r.PID != os.Getpid() || r.Gen != 1 {
		t.Errorf("the owner's record is %+v; want this process on lock file 1", r)
	}

	// The new owner lives: another Open shares the queue.
	other, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if other.Owner() {
		t.Error("a second Open owns the queue while the new owner lives")
	}
	other.Close()

	// Once the new owner quits and the system lets the old lock go, the
	// next Open owns the queue on the new lock file and removes the old.
	q.Close()
	system.closeLock()
	q = queuetest.Open(t, Open, dir)
	if !q.Owner() {
		t.Error("Open after the owner quit does not own the queue")
	}
	if _, err := os.Stat(lockPath(dir, 0)); !os.IsNotExist(err) {
		t.Errorf("the old lock file is still there: %v", err)
	}
}
