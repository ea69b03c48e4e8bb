package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"braid/engine"
	"braid/runner"
)

// TestQueueLog: queue run's observer writes a job's line when a file
// starts over HTTP or FTP (not for a torrent, whose first line comes with
// its swarm), at most one every 5 s while it runs, per job, and always
// one when it ends.
func TestQueueLog(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	l := newQueueLog(&out)
	lines := func() []string {
		s := strings.TrimSuffix(out.String(), "\n")
		out.Reset()
		if s == "" {
			return nil
		}
		return strings.Split(s, "\n")
	}
	f := &runner.FileRun{Job: 3, Name: "f.bin", Size: 4 << 20}
	l.Start(f)
	running := engine.Snapshot{Name: "f.bin", Size: 4 << 20, Bytes: 1 << 20, Speed: 1 << 20, State: engine.StateDownloading}
	l.Progress(f, runner.Progress{Snapshot: &running})
	if got := lines(); len(got) != 1 || !strings.HasPrefix(got[0], "job 3 f.bin: starting 0% ") {
		t.Fatalf("start, then a reading at once: %q; want the start line only", got)
	}
	tor := &runner.FileRun{Job: 4, Name: "t", Size: -1, Torrent: true}
	l.Start(tor)
	if got := lines(); got != nil {
		t.Fatalf("a torrent's start: %q; want no line", got)
	}
	other := engine.Snapshot{Name: "t", Size: 8 << 20, Bytes: 2 << 20, Speed: 1 << 20, State: engine.StateDownloading}
	l.Progress(tor, runner.Progress{Snapshot: &other})
	if got := lines(); len(got) != 1 || !strings.HasPrefix(got[0], "job 4 t: downloading 25% ") {
		t.Fatalf("another job's first reading: %q; want its line", got)
	}
	// Five seconds later job 3 has a line again, here that it waits.
	l.mu.Lock()
	l.last[3] = time.Now().Add(-queueLogEvery)
	l.mu.Unlock()
	waiting := running
	waiting.State, waiting.NextTry = engine.StateWaiting, time.Now().Add(20*time.Second)
	l.Progress(f, runner.Progress{Snapshot: &waiting})
	if got := lines(); len(got) != 1 || !strings.HasPrefix(got[0], "job 3 f.bin: waiting for the network, ") {
		t.Fatalf("a reading 5 s on, waiting: %q; want the waiting line", got)
	}
	done := running
	done.Bytes, done.State, done.Checked = done.Size, engine.StateDone, true
	l.Result(runner.Result{Run: f, File: "f.bin", Snapshot: &done})
	l.Result(runner.Result{Source: "gone.meta4"}) // never started: nothing to say
	if got := lines(); len(got) != 1 || !strings.HasPrefix(got[0], "job 3 f.bin: done, ") || !strings.Contains(got[0], " 100% ") {
		t.Fatalf("the end, at once after the last line: %q; want the done line", got)
	}
	// A job whose file came out right although a mirror lied: the lie is
	// in the log, the good mirror is not.
	lied := done
	lied.Mirrors = []engine.MirrorSnapshot{
		{URL: "http://a.example/f.bin", Strikes: 3, State: engine.MirrorDropped},
		{URL: "http://b.example/f.bin"},
	}
	l.Result(runner.Result{Run: f, File: "f.bin", Snapshot: &lied})
	want := "job 3 f.bin: http://a.example/f.bin: 3 pieces it sent failed their hash and were fetched again; it was dropped"
	if got := lines(); len(got) != 2 || got[1] != want {
		t.Fatalf("the end of a job a mirror lied to: %q; want the done line, then %q", got, want)
	}
}
