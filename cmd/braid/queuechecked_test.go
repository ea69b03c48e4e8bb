package main

import (
	"strings"
	"testing"

	"braid/engine"
	"braid/engine/metalink"
	"braid/engine/mirrortest"
	"braid/queue"
)

// TestQueueListSaysWhatWasChecked: `queue list` has a CHECKED column
// (and --json a "checked" key) saying how a done job's files were checked.
func TestQueueListSaysWhatWasChecked(t *testing.T) {
	t.Parallel()
	state, _ := queueFixture(t)
	q, err := queue.Open(state)
	if err != nil {
		t.Fatal(err)
	}
	if err := q.Landed(1, "a.iso", &engine.Snapshot{SavedAs: "a.iso", Created: true, VerifiedBy: "sha-256"}); err != nil {
		t.Fatal(err)
	}
	if err := q.Landed(2, "b.iso", &engine.Snapshot{SavedAs: "b.iso", Created: true}); err != nil {
		t.Fatal(err)
	}
	q.Close()
	code, out, errOut := runQueue(t, "--state", state, "list")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	lines := strings.Split(out, "\n")
	if !strings.Contains(lines[0], "CHECKED") || !strings.Contains(lines[1], "verified (sha-256)") ||
		!strings.Contains(lines[2], "not verified (no hash published)") {
		t.Errorf("list:\n%s", out)
	}
	_, out, _ = runQueue(t, "--state", state, "list", "--json")
	if !strings.Contains(out, `"checked": "verified (sha-256)"`) {
		t.Errorf("list --json lacks the checked key:\n%s", out)
	}
}

// TestQueueRunNothingQueued: `queue run` with only paused jobs says so.
func TestQueueRunNothingQueued(t *testing.T) {
	t.Parallel()
	state, _ := queueFixture(t)
	if code, _, errOut := runQueue(t, "--state", state, "pause", "1"); code != 0 {
		t.Fatalf("pause: exit %d: %s", code, errOut)
	}
	code, out, errOut := runQueue(t, "--state", state, "run")
	if code != 0 || !strings.Contains(out, "nothing to run") || !strings.Contains(out, "2 paused") {
		t.Errorf("exit %d, stdout %q, stderr %q; want it to say nothing is queued", code, out, errOut)
	}
}

// TestQueueRunSaysWhatWasChecked: the line of a finished job says which
// hash verified it.
func TestQueueRunSaysWhatWasChecked(t *testing.T) {
	t.Parallel()
	data := mirrortest.Bytes(512<<10, 41)
	m := mirrortest.New(t, data)
	state, dest := t.TempDir(), t.TempDir()
	q, err := queue.Open(state)
	if err != nil {
		t.Fatal(err)
	}
	f := pcFile("run.bin", data, 128<<10, m.URL())
	if _, err := q.Add(queue.NewJob{Source: "run.meta4", Dest: dest, Doc: &metalink.Document{Files: []metalink.File{f}}}); err != nil {
		t.Fatal(err)
	}
	q.Close()
	code, out, errOut := runQueue(t, "--state", state, "run")
	if code != 0 || !strings.Contains(out, "run.bin: done, verified (sha-256 piece hashes)") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}
