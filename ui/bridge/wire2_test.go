package bridge

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"braid/engine"
	"braid/engine/metalink"
	"braid/engine/mirrortest"
	"braid/internal/testkit"
	"braid/queue"
	"braid/ui"
)

// A different file already at the name stays; the download lands under a
// free name, which the details show with the reason, and a verify checks
// the file where it was saved.
func TestSavedUnderFreeNameShown(t *testing.T) {
	data := payload(8 * pieceLen)
	m := mirrortest.New(t, data)
	f := describeData(t, "f.bin", data, m.URL())
	q := openQueue(t)
	b := newBackend(t, q)
	dir := t.TempDir()
	other := []byte("someone else's file, not this download")
	if err := os.WriteFile(filepath.Join(dir, "f.bin"), other, 0o644); err != nil {
		t.Fatal(err)
	}
	id := startOne(t, b, "f.meta4", f, dir)
	testkit.WaitFor(t, "the download", func() bool { return jobByID(t, b, id).State == ui.Done })
	if got, err := os.ReadFile(filepath.Join(dir, "f.bin")); err != nil || string(got) != string(other) {
		t.Fatalf("the file that was there was changed (%v)", err)
	}
	d, err := b.Detail(id, false)
	if err != nil {
		t.Fatal(err)
	}
	if d.Files[0].SavedAs != "f (1).bin" {
		t.Fatalf("details show saved as %q, want f (1).bin", d.Files[0].SavedAs)
	}
	if got, err := os.ReadFile(filepath.Join(dir, d.Files[0].SavedAs)); err != nil || string(got) != string(data) {
		t.Fatalf("the download is not at the path shown (%v)", err)
	}
	// The window's details say where the file is, and why.
	w := newWindow(t, b)
	w.Select(id)
	w.Tick()
	if s := infoText(w); !strings.Contains(s, "f (1).bin (a different file was already at f.bin; Braid does not overwrite it)") {
		t.Errorf("the details do not show the free name:\n%s", s)
	}
	if err := b.Verify(id); err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, "verify", func() bool { return len(b.Active()) == 0 })
	if j := jobByID(t, b, id); j.State != ui.Done || j.Mismatch || j.Outcome != "verified (sha-256)" {
		t.Errorf("verify of the file saved under a free name: %+v", j)
	}
}

// A download whose only mirror goes off the network shows as Waiting,
// with the next try, not as an error; once the mirror is back it
// finishes.
func TestWaitingJobShownThenFinishes(t *testing.T) {
	data := payload(40 * pieceLen)
	m := mirrortest.New(t, data, mirrortest.Rate(512<<10))
	f := describeData(t, "w.bin", data, m.URL())
	q := openQueue(t)
	b := newBackend(t, q)
	b.svc.UseClient(&engine.Client{StallTimeout: 200 * time.Millisecond, MaxBackoff: 2 * time.Second})
	id := startOne(t, b, "w.meta4", f, t.TempDir())
	active := func() (ui.Job, bool) {
		for _, j := range b.Active() {
			if j.ID == id {
				return j, true
			}
		}
		return ui.Job{}, false
	}
	testkit.WaitFor(t, "progress", func() bool { j, ok := active(); return ok && j.Done > 0 })
	m.Pause()
	var waiting ui.Job
	testkit.WaitFor(t, "the Waiting state", func() bool {
		j, ok := active()
		waiting = j
		return ok && j.State == ui.Waiting
	})
	if waiting.NextTry.IsZero() || waiting.Err == "" {
		t.Errorf("a waiting job without its next try or reason: %+v", waiting)
	}
	if listed := jobByID(t, b, id); listed.State == ui.Failed {
		t.Errorf("the waiting job is listed as failed: %+v", listed)
	}
	// The window's row shows it waiting too, with its next try (between
	// a try that began and its failure, the engine knows no next try
	// yet: the row is read again until it does).
	w := newWindow(t, b)
	var rows []ui.Job
	for end := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		w.Tick()
		rows = w.Jobs()
		if len(rows) == 1 && rows[0].State == ui.Waiting && !rows[0].NextTry.IsZero() {
			break
		}
		if time.Now().After(end) {
			t.Fatalf("the window's rows: %+v", rows)
		}
	}
	m.Resume()
	testkit.WaitFor(t, "the download after the outage", func() bool { return jobByID(t, b, id).State == ui.Done })
	if j := jobByID(t, b, id); j.Err != "" {
		t.Errorf("the finished job still says %q", j.Err)
	}
}

// A running job the queue says waits for the network (what the window has
// when another process runs it) shows as Waiting until its next try, not
// as an error.
func TestWaitingNoteFromQueue(t *testing.T) {
	t.Parallel()
	b := newBackend(t, openQueue(t))
	next := time.Now().Add(90 * time.Second).Truncate(time.Second)
	j := queue.Job{ID: 7, State: queue.Running, NextTry: next}
	b.mu.Lock()
	v := b.viewLocked(j)
	b.mu.Unlock()
	if v.State != ui.Waiting || !v.NextTry.Equal(next) || v.Err != "waiting for the network" {
		t.Errorf("a running job with the waiting note shows as %v, next try %v, %q", v.State, v.NextTry, v.Err)
	}
	j.Error = "every mirror failed"
	j.State = queue.Failed
	b.mu.Lock()
	v = b.viewLocked(j)
	b.mu.Unlock()
	if v.State != ui.Failed || !v.NextTry.IsZero() {
		t.Errorf("a failed job shows as %v, next try %v", v.State, v.NextTry)
	}
}

// Three jobs downloading at once each keep a live row from the moment
// all three are seen until they end: no read of Active drops one. The
// number at once set while the runner runs applies to it.
func TestThreeJobsLiveAtOnce(t *testing.T) {
	q := openQueue(t)
	b := newBackend(t, q)
	if err := b.SetSettings(ui.Settings{Dir: t.TempDir(), MaxJobs: 1}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var ids []ui.JobID
	for i, name := range []string{"a.bin", "b.bin", "c.bin"} {
		data := mirrortest.Bytes(48*pieceLen, uint64(i+1))
		m := mirrortest.New(t, data, mirrortest.Rate(256<<10))
		f := describeData(t, name, data, m.URL())
		id, err := b.Add(context.Background(), ui.AddRequest{Source: name + ".meta4", Doc: &metalink.Document{Version: 4, Files: []metalink.File{f}}, Dir: dir})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	if err := b.Start(true); err != nil {
		t.Fatal(err)
	}
	running := func() map[ui.JobID]ui.Job {
		out := map[ui.JobID]ui.Job{}
		for _, j := range b.Active() {
			if j.State == ui.Running {
				out[j.ID] = j
			}
		}
		return out
	}
	// One at a time, as set; then three, a change the running runner
	// follows.
	testkit.WaitFor(t, "one job live with progress", func() bool {
		live := running()
		if len(live) > 1 {
			t.Fatalf("%d jobs run with one download at once set", len(live))
		}
		for _, j := range live {
			return j.Done > 0
		}
		return false
	})
	if err := b.SetSettings(ui.Settings{Dir: t.TempDir(), MaxJobs: 3}); err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, "three jobs live with progress", func() bool {
		live := running()
		for _, id := range ids {
			if live[id].Done == 0 {
				return false
			}
		}
		return true
	})
	ended := func(id ui.JobID) bool {
		j, err := q.Get(int64(id))
		return err != nil || j.State != queue.Running
	}
	w := newWindow(t, b)
	testkit.WaitFor(t, "the three jobs", func() bool {
		// The window's rows, read as its ticker does, keep each running
		// job's progress from tick to tick.
		w.Tick()
		for _, row := range w.Jobs() {
			if (row.State == ui.Running || row.State == ui.Queued) && !ended(row.ID) && row.Done == 0 {
				t.Fatalf("job %d lost its progress in the window: %+v", row.ID, row)
			}
		}
		live := running()
		all := true
		for _, id := range ids {
			if _, ok := live[id]; !ok && !ended(id) {
				t.Fatalf("job %d dropped from the live rows while it runs", id)
			}
			all = all && jobByID(t, b, id).State == ui.Done
		}
		return all
	})
}

// The "downloads at once" setting is the queue's Settings.Jobs, both
// ways, under its one key.
func TestDownloadsAtOnceIsSettingsJobs(t *testing.T) {
	t.Parallel()
	q := openQueue(t)
	b := newBackend(t, q)
	if err := b.SetSettings(ui.Settings{Dir: t.TempDir(), MaxJobs: 5}); err != nil {
		t.Fatal(err)
	}
	if s, err := q.Settings(); err != nil || s.Jobs != 5 {
		t.Fatalf("queue Settings.Jobs = %d (%v), want 5", s.Jobs, err)
	}
	if err := q.UpdateSettings(func(s *queue.Settings) { s.Jobs = 2 }); err != nil {
		t.Fatal(err)
	}
	if s, err := b.Settings(); err != nil || s.MaxJobs != 2 {
		t.Errorf("the window reads %d (%v) downloads at once, want 2", s.MaxJobs, err)
	}
	if err := b.SetSettings(ui.Settings{Dir: t.TempDir(), MaxJobs: -4}); err != nil {
		t.Fatal(err)
	}
	if s, err := q.Settings(); err != nil || s.Jobs != queue.DefaultJobs {
		t.Errorf("a negative number reads back as %d (%v), want the default %d", s.Jobs, err, queue.DefaultJobs)
	}
}

// Repair of a file that is gone has nothing to mend: the runner fetches
// it again whole, to its name.
func TestRepairOfMissingFileFetchesItAgain(t *testing.T) {
	t.Parallel()
	data := payload(8 * pieceLen)
	m := mirrortest.New(t, data)
	f := describeData(t, "gone.bin", data, m.URL())
	q := openQueue(t)
	b := newBackend(t, q)
	dir := t.TempDir()
	id := startOne(t, b, "gone.meta4", f, dir)
	testkit.WaitFor(t, "the download", func() bool { return jobByID(t, b, id).State == ui.Done })
	if err := os.Remove(filepath.Join(dir, "gone.bin")); err != nil {
		t.Fatal(err)
	}
	served := m.BytesServed()
	if err := b.Repair(id); err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, "the file fetched again", func() bool {
		_, err := os.Stat(filepath.Join(dir, "gone.bin"))
		return err == nil && jobByID(t, b, id).State == ui.Done
	})
	if got, err := os.ReadFile(filepath.Join(dir, "gone.bin")); err != nil || string(got) != string(data) {
		t.Fatalf("the file fetched again differs (%v)", err)
	}
	if again := m.BytesServed() - served; again < int64(len(data)) {
		t.Errorf("fetched %d bytes again for a missing file of %d", again, len(data))
	}
}

// startOne starts b's runner and adds a job of the one file f, from
// source, into dir.
func startOne(t *testing.T, b *Backend, source string, f metalink.File, dir string) ui.JobID {
	t.Helper()
	if err := b.Start(false); err != nil {
		t.Fatal(err)
	}
	id, err := b.Add(context.Background(), ui.AddRequest{Source: source, Doc: &metalink.Document{Version: 4, Files: []metalink.File{f}}, Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	return id
}
