package runner

import (
	"context"
	"slices"
)

// A job paused or removed in the queue is stopped by its run's guard,
// which reads the job's state once a poll interval: the bytes go on
// arriving for up to a second. A face that paused the job in this process
// need not wait for that: LetGo makes every guard look now, and waits
// for the run to end.

// lookNow is closed when the runs are to read their jobs' states in the
// queue at once (LetGo); each look takes the channel anew.
func (r *Runner) lookNow() <-chan struct{} {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.look == nil {
		r.look = make(chan struct{})
	}
	return r.look
}

// noteClaimed counts a run's claim among the runs begun (Activity): a
// face that read the queue after the run was noted and before its claim
// holds the job as queued still, and reads it again.
func (r *Runner) noteClaimed() {
	r.mu.Lock()
	r.started++
	r.mu.Unlock()
}

// lookAll makes every run read its job's state now.
func (r *Runner) lookAll() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.look != nil {
		close(r.look)
		r.look = nil
	}
}

// startRun notes that a run of job id is under way, until the function
// it returns is called, once the run has ended and its end is recorded.
// Runs of one job may overlap for a moment (one noted before its claim
// fails, or before the run it follows has ended); each is noted apart.
func (r *Runner) startRun(id int64) (ended func()) {
	done := make(chan struct{})
	r.mu.Lock()
	if r.runs == nil {
		r.runs = map[int64][]chan struct{}{}
	}
	r.runs[id] = append(r.runs[id], done)
	r.started++
	r.mu.Unlock()
	return func() {
		r.mu.Lock()
		r.runs[id] = slices.DeleteFunc(r.runs[id], func(c chan struct{}) bool { return c == done })
		if len(r.runs[id]) == 0 {
			delete(r.runs, id)
		}
		r.mu.Unlock()
		close(done)
	}
}

// Activity reports whether the runner has anything in hand that changes
// the queue by itself (a job's run, from before its claim until its end
// is recorded, or a torrent seeding) and a count that moves when a run
// begins and again when its claim is made. Safe for concurrent use.
func (r *Runner) Activity() (working bool, began uint64) {
	r.mu.Lock()
	working, began = len(r.runs) > 0, r.started
	r.mu.Unlock()
	return working || len(r.Seeding()) > 0, began
}

// LetGo stops the run of job id, which was just paused or removed in the
// queue, now rather than at its next look at the queue, and returns once
// the run has ended: no more bytes arrive for the job, and what it kept
// is in the queue's record. It returns at once when this runner does not
// run the job, and ctx's error when ctx ends first (a job the queue still
// has running goes on). Safe for concurrent use.
func (r *Runner) LetGo(ctx context.Context, id int64) error {
	r.mu.Lock()
	runs := slices.Clone(r.runs[id])
	r.mu.Unlock()
	if len(runs) == 0 {
		return nil
	}
	r.lookAll()
	for _, done := range runs {
		select {
		case <-done:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}
