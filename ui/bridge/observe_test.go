package bridge

import (
	"testing"

	"braid/engine"
	"braid/engine/metalink"
	"braid/queue"
	"braid/runner"
)

// TestObserverFollowsANewVersion: the runner tells the bridge's Observer
// of a file whose dynamic document brought a new version under another
// name; the old name's download, which the runner let go of without a
// word of its end, counts as failed, so once the new version is done and
// the queue no longer runs the job, the job's live row goes and the list
// shows how it ended (it stayed live for ever while the old name seemed
// to run).
func TestObserverFollowsANewVersion(t *testing.T) {
	t.Parallel()
	q := openQueue(t)
	b := newBackend(t, q)
	f := describeData(t, "v1.bin", payload(100<<10), "http://127.0.0.1:1/v1.bin")
	id, err := q.Add(queue.NewJob{Source: "v.meta4", Dest: t.TempDir(), Doc: &metalink.Document{Version: 4, Files: []metalink.File{f}}})
	if err != nil {
		t.Fatal(err)
	}
	j, err := q.Get(id)
	if err != nil {
		t.Fatal(err)
	}
	o := observer{b}
	run := &runner.FileRun{Job: id, Queued: &j, Name: "v1.bin", Size: f.Size}
	o.Start(run)
	o.Progress(run, runner.Progress{Snapshot: &engine.Snapshot{Name: "v1.bin", Size: f.Size, Bytes: 10 << 10, State: engine.StateDownloading}})
	state := func(name string) (engine.State, bool) {
		b.mu.Lock()
		defer b.mu.Unlock()
		l := b.live[id]
		if l == nil {
			return 0, false
		}
		return l.files[name].state, true
	}
	if s, ok := state("v1.bin"); !ok || ended(s) {
		t.Fatalf("v1.bin: %v (live %v); want it running", s, ok)
	}

	// The new version starts (the runner's FileRun keeps the old name).
	o.Start(run)
	o.Progress(run, runner.Progress{Snapshot: &engine.Snapshot{Name: "v2.bin", Size: f.Size, Bytes: 0, State: engine.StateDownloading}})
	if s, ok := state("v1.bin"); !ok || s != engine.StateFailed {
		t.Fatalf("v1.bin once v2.bin runs: %v (live %v); want failed", s, ok)
	}
	o.Result(runner.Result{Run: run, File: "v1.bin", Snapshot: &engine.Snapshot{Name: "v2.bin", Size: f.Size, Bytes: f.Size, State: engine.StateDone}})
	// The queue says the job is not running (it never was here): the
	// bridge lets go of it.
	if _, ok := state("v2.bin"); ok {
		t.Fatal("the job is still live after its new version ended and the queue stopped running it")
	}
}
