package runner

import (
	"context"
	"time"

	"braid/engine"
	"braid/queue"
)

// watching is how fetch follows one file's download for its face: a queue
// run's (its Observer, Live) or get's (its Observer).
type watching struct {
	// every is how often the download is read and tick told.
	every time.Duration
	// job is the file's job, once it is in the queue, with the queue it is
	// in; it is asked only when something is to be kept with the job (a
	// wait for the network, the mirrors' speeds and strikes), and it may
	// block until get has recorded a job it started before its rows.
	job func() (q *queue.Queue, id int64, ok bool)
	// live, when not 0, is the job whose Live lists the download while it
	// runs.
	live int64
	// begin, tick and end are told the snapshot when the download starts,
	// once every, and when it has ended; each may be nil.
	begin, tick, end func(*engine.Snapshot)
	// heard is told each mirror host's speed in this file, at its end.
	heard func(host string, bps float64)
}

// fetch downloads req with c and follows it to its end as w says: the one
// place the runner starts a file's download (Client.Do) and watches it,
// for a queue run's files and get's alike. It keeps the job's next try in
// the queue while the download waits for the network (so queue list and
// the window show it), passes on the mirrors' speeds and stores their
// strikes at the end, and returns the last snapshot and the download's
// error. Stopping it when the job is paused elsewhere is the job's
// guard's work (guardJob).
func (r *Runner) fetch(ctx context.Context, c *engine.Client, req *engine.Request, w watching) (engine.Snapshot, error) {
	dl := c.Do(ctx, req)
	if w.live != 0 {
		r.addLive(w.live, dl)
		defer r.dropLive(w.live, dl)
	}
	tick := time.NewTicker(w.every)
	defer tick.Stop()
	var snap engine.Snapshot
	speeds := map[string][]float64{}
	dl.SnapshotInto(&snap)
	if w.begin != nil {
		w.begin(&snap)
	}
	var waiting time.Time // the next try the job's note names, zero when none
	for {
		select {
		case <-dl.Done():
			err := dl.Err()
			dl.SnapshotInto(&snap)
			if w.end != nil {
				w.end(&snap)
			}
			if q, id, ok := w.job(); ok {
				// Kept with the job once it is recorded: a job never
				// recorded has nowhere to keep it.
				learn(q, id, snap, speeds, w.heard)
			}
			return snap, err
		case <-tick.C:
			dl.SnapshotInto(&snap)
			sampleSpeeds(&snap, speeds)
			if snap.State == engine.StateWaiting || !waiting.IsZero() {
				if q, id, ok := w.job(); ok {
					waiting = noteWaiting(q, id, &snap, waiting)
				}
			}
			if w.tick != nil {
				w.tick(&snap)
			}
		}
	}
}
