package bridge

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"

	"braid/engine/metalink"
	"braid/engine/mirrortest"
	"braid/ui"
)

// TestWhenDoneNoteReachesTheWindow: a command run when done that fails a
// moment after its download finished leaves its note on the job, and the
// backend tells the window to read the queue again, so the row says it.
// (The window reads the queue only when told; the note used to stay
// unseen until something else changed.)
func TestWhenDoneNoteReachesTheWindow(t *testing.T) {
	t.Parallel()
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("needs sh for the command that fails a moment later")
	}
	q := openQueue(t)
	data := payload(200 << 10)
	m := mirrortest.New(t, data, mirrortest.Addr("127.0.0.2"))
	b := newBackend(t, q)
	d := &metalink.Document{Version: 4, Files: []metalink.File{describeData(t, "a.bin", data, m.URL())}}
	id, err := b.Add(context.Background(), ui.AddRequest{Source: "a.meta4", Doc: d, Dir: t.TempDir(), Paused: true})
	if err != nil {
		t.Fatal(err)
	}
	// The file's path is $0; the command fails after the run has ended.
	cmd := sh + ` -c "sleep 1; echo no luck >&2; exit 3"`
	if err := b.SetWhenDone(id, ui.WhenDone{Action: ui.WhenDoneCommand, Command: cmd}); err != nil {
		t.Fatal(err)
	}
	if err := b.Start(false); err != nil {
		t.Fatal(err)
	}
	if err := b.Resume(id); err != nil {
		t.Fatal(err)
	}
	deadline := time.After(30 * time.Second)
	for {
		select {
		case <-b.Changes():
		case <-deadline:
			wj, _ := q.Get(int64(id))
			t.Fatalf("no change told the window of the note; the queue holds %+v, the row %+v", wj.WhenDoneNote, jobByID(t, b, id).WhenDoneNote)
		}
		if j := jobByID(t, b, id); j.WhenDoneNote.Kind == ui.WhenDoneCommand {
			if j.State != ui.Done {
				t.Errorf("job %s with a failed command", j.State)
			}
			if want := "exit status 3: no luck"; !strings.Contains(j.WhenDoneNote.Detail, want) {
				t.Errorf("note %q does not say %q", j.WhenDoneNote.Detail, want)
			}
			return
		}
	}
}
