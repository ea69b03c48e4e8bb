package bridge

import (
	"time"

	"braid/engine"
	"braid/engine/signature"
	"braid/queue"
	"braid/runner"
	"braid/ui"
)

// observer is the bridge's runner.Observer. The runner tells it which
// jobs and files it has in hand (Start, Progress) and how each file ended
// (Result); what the window shows of a running download it reads from
// the engine itself, at its own rate (refreshLocked). Notes and signature
// outcomes are the queue's to keep: the window reads them with the jobs
// (a note that a job waits makes it read them now).
type observer struct{ b *Backend }

// Interval: once a second is enough for the runner's word, as the window
// reads the engine's snapshots itself four times a second.
func (o observer) Interval() time.Duration { return time.Second }

func (o observer) Start(f *runner.FileRun) {
	// The engine's first snapshot, when the download is not live yet.
	o.b.told(f, &engine.Snapshot{Name: f.Name, Size: f.Size, State: engine.StateStarting})
}

func (o observer) Progress(f *runner.FileRun, p runner.Progress) { o.b.told(f, p.Snapshot) }

func (o observer) Result(r runner.Result) {
	if r.Run != nil && r.Snapshot != nil {
		o.b.told(r.Run, r.Snapshot)
	}
}

// Note: a job that waits to read its link again keeps its next try and
// why in the queue, before any file of it is in hand: the window reads
// the queue again to show it waiting.
func (o observer) Note(n runner.Note) {
	if n.Kind == runner.NoteWaiting {
		o.b.changed()
	}
}

func (o observer) Signature(*runner.FileRun, signature.Outcome) {}

func (o observer) Check(c runner.CheckEvent) { o.b.checked(c) } // check.go

// told is what the runner says of f's download: which job and file are in
// hand, with s its snapshot. It keeps a private copy of s (the runner
// reuses its slices) for when the runner has let go of the download.
// Several jobs, and several files of a job, may be in hand at once: each
// job keeps its live row until it ends.
func (b *Backend) told(f *runner.FileRun, s *engine.Snapshot) {
	if f.Queued == nil || s == nil {
		return // not a queue job's: nothing of it shows
	}
	j := *f.Queued
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.stopped[j.ID] {
		return
	}
	l := b.live[j.ID]
	if l == nil {
		l = newLive()
		b.live[j.ID] = l
		defer b.changed()
	}
	l.job, l.state = j, ui.Running
	if name, ok := l.runs[f]; ok && name != s.Name {
		// A dynamic document's new version of the file: the runner let go
		// of the old one's download, which failed.
		if old, ok := l.files[name]; ok && !ended(old.state) {
			old.state = engine.StateFailed
			l.files[name] = old
		}
	}
	l.runs[f] = s.Name
	if ended(s.State) {
		delete(l.runs, f) // its last word
		b.keepLocked(j.ID, s)
	}
	// A fresh read when the download is live: s was taken before this
	// call waited for the lock, and may be older than what the window
	// was shown meanwhile.
	if !b.refreshLocked(j.ID, l) {
		if l.snap.Name != "" && l.snap.Name != s.Name {
			b.keepLocked(j.ID, &l.snap) // the next file of the job
		}
		copySnapshot(&l.snap, s)
	}
	if ended(s.State) || l.files[s.Name] == (fileLive{}) {
		// The runner's word on a file that ended is final; a file the
		// refresh did not read is known by s alone.
		l.note(s)
	}
	j.State = queue.Running
	b.known[j.ID] = withoutDoc(j)
	if b.pruneLocked() {
		defer b.changed()
	}
}
