package bridge

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"braid/queue"
	"braid/queue/queuetest"
	"braid/ui"
)

// TestUnrecordedCheckIsTold: a Verify whose outcome the queue cannot take
// (another program holds the database's write lock past the queue's
// wait) ends with the job's row saying so, not silently in the state from
// before; once the lock is gone, the next Verify counts and the sentence
// goes.
func TestUnrecordedCheckIsTold(t *testing.T) {
	data := payload(8 * pieceLen)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "kept.bin"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	// The queue waits 300 ms for a lock, not its 5 s: each write the
	// lock refuses costs that.
	q := queuetest.Open(t, func(dir string) (*queue.Queue, error) {
		return queue.OpenOptions(dir, queue.Options{BusyTimeout: 300 * time.Millisecond})
	}, t.TempDir())
	f := describeData(t, "kept.bin", data, "http://127.0.0.1:9/kept.bin")
	id := doneJob(t, q, dir, f)
	b := newBackend(t, q)
	w := newWindow(t, b)
	w.Tick()
	row := func() string {
		return lineWith(strings.Join(ui.VisibleTexts(w.Win.Canvas()), "\n"), "kept.bin")
	}
	verify := func(what string) string {
		t.Helper()
		if err := b.Verify(ui.JobID(id)); err != nil {
			t.Fatalf("%s: Verify: %v", what, err)
		}
		for end := time.Now().Add(30 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
			w.Tick()
			if st := jobByID(t, b, ui.JobID(id)).State; st != ui.Verifying {
				w.Tick()
				return row()
			}
		}
		t.Fatalf("%s: Verify never ended", what)
		return ""
	}

	// Another program takes the write lock; readers go on (WAL), so the
	// check starts, and only what it found cannot be written.
	raw := queuetest.RawDB(t, q.Path())
	if _, err := raw.Exec("BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	r := verify("locked")
	if !strings.Contains(r, "Verify could not record what it found (another program held the queue's database); try it again") {
		t.Fatalf("after a Verify the queue could not record, the row says %q", r)
	}
	if j := jobByID(t, b, ui.JobID(id)); j.State != ui.Done {
		t.Fatalf("the job is %s after the unrecorded Verify, want done as before", j.State)
	}
	if _, err := raw.Exec("ROLLBACK"); err != nil {
		t.Fatal(err)
	}
	r = verify("unlocked")
	if strings.Contains(r, "could not record") || !strings.Contains(r, "Done") {
		t.Fatalf("after a Verify that counted, the row says %q", r)
	}
}
