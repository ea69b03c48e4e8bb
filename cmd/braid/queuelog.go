package main

import (
	"fmt"
	"io"
	"sync"
	"time"

	"braid/engine"
	"braid/engine/signature"
	"braid/runner"
)

// queueLogEvery is how often queue run writes a line for a job while it
// runs: one every few seconds is enough for a log.
const queueLogEvery = 5 * time.Second

// queueLog is queue run's runner.Observer: for each job a line when a
// file starts over HTTP or FTP, one every queueLogEvery while it runs
// (its state, share done, bytes and speed, or that it waits for the
// network), and one when it ends. Safe for concurrent use.
type queueLog struct {
	w    io.Writer
	mu   sync.Mutex          // guards last, and keeps a job's lines in order
	last map[int64]time.Time // job → when its last line went out
}

func newQueueLog(w io.Writer) *queueLog {
	return &queueLog{w: w, last: map[int64]time.Time{}}
}

func (l *queueLog) Interval() time.Duration { return time.Second }

func (l *queueLog) Start(f *runner.FileRun) {
	if f.Torrent {
		return // its first line comes with its swarm's first reading
	}
	l.say(f.Job, &engine.Snapshot{Name: f.Name, Size: f.Size, State: engine.StateStarting})
}

func (l *queueLog) Progress(f *runner.FileRun, p runner.Progress) { l.say(f.Job, p.Snapshot) }

func (l *queueLog) Result(r runner.Result) {
	if r.Run != nil && r.Snapshot != nil {
		l.say(r.Run.Job, r.Snapshot)
		l.mu.Lock()
		tellStrikes(l.w, fmt.Sprintf("job %d %s", r.Run.Job, r.Snapshot.Name), r.Snapshot, r.Err == nil)
		l.mu.Unlock()
	}
}

// Notes and signatures are get's: a queue run's job records them (queue
// list, the window).
func (l *queueLog) Note(runner.Note)                             {}
func (l *queueLog) Signature(*runner.FileRun, signature.Outcome) {}

// Check: no check runs in this face.
func (l *queueLog) Check(runner.CheckEvent) {}

// say writes job id's line for s, unless it wrote one less than
// queueLogEvery ago and s has not ended.
func (l *queueLog) say(id int64, s *engine.Snapshot) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if time.Since(l.last[id]) < queueLogEvery && s.State < engine.StateDone {
		return
	}
	l.last[id] = time.Now()
	if s.State == engine.StateWaiting {
		fmt.Fprintf(l.w, "job %d %s: waiting for the network, %s\n", id, s.Name, tryText(s))
		return
	}
	pct := 0.0
	if s.Size > 0 {
		pct = 100 * float64(s.Bytes) / float64(s.Size)
	}
	state := s.State.String()
	if s.State == engine.StateDone {
		state = "done, " + engine.OutcomeText(s.Outcome(), s.VerifiedBy)
	}
	fmt.Fprintf(l.w, "job %d %s: %s %.0f%% %s/%s %s/s\n", id, s.Name, state, pct,
		byteText(s.Bytes), byteText(s.Size), byteText(s.Speed))
}
