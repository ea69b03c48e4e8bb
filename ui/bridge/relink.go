package bridge

import (
	"context"
	"errors"
	"strings"
	"time"

	"braid/queue"
	"braid/runner"
	"braid/ui"
)

// relinkTimeout bounds how long checking a new link may take.
const relinkTimeout = 2 * time.Minute

// CanRelink reports whether job id has one link to change (one file
// selected, not a torrent, not done), and whether it is paused because
// its link expired.
func (b *Backend) CanRelink(id ui.JobID) (ok, expired bool) {
	j, err := b.q.Get(int64(id)) // a sync job has no file: none to relink
	if err != nil || j.State == queue.Done || runner.IsTorrent(j) {
		return false, false
	}
	n := 0
	for _, f := range j.Files {
		if f.Selected {
			n++
		}
	}
	return n == 1, j.LinkExpired()
}

// Relink gives job id the link newURL with runner.Relink: the bytes on
// disk stay when the new link serves the same file, and the job resumes,
// fetching only what is missing. A job the runner has in hand is paused
// first, and resumed as it was when the new link is refused; a refusal
// (wrapping queue.ErrRelink) leaves the job as it was. The new link is
// read through the window's network (its proxy), wearing the job's
// logins, cookies and headers.
func (b *Backend) Relink(id ui.JobID, newURL string) (string, error) {
	j, err := b.q.Get(int64(id))
	if err != nil {
		return "", err
	}
	wasMoving := j.State == queue.Running || j.State == queue.Queued
	if wasMoving {
		if err := b.Pause(id); err != nil {
			return "", err
		}
		b.waitLetGo(int64(id))
	}
	hc := b.svc.Client().HTTPClient()
	ctx, cancel := context.WithTimeout(b.ctx, relinkTimeout)
	defer cancel()
	checked, err := runner.Relink(ctx, b.q, hc, int64(id), newURL)
	if err != nil {
		if wasMoving {
			_ = b.Resume(id) // as it was; the refusal is what the user reads
		}
		return "", refusal(err)
	}
	if err := b.Resume(id); err != nil {
		return checked, err
	}
	return checked, nil
}

// waitLetGo waits, a few seconds at most, until the runner no longer
// downloads a file of job id (it follows a pause within a second).
func (b *Backend) waitLetGo(id int64) {
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(5 * time.Second)
	for {
		if _, ok := b.runner.Live(id); !ok {
			if s, err := b.q.StateOf(id); err != nil || s != queue.Running {
				return
			}
		}
		select {
		case <-tick.C:
		case <-deadline:
			return
		case <-b.ctx.Done():
			return
		}
	}
}

// refusalError is runner.Relink's refusal said as its reason only, the
// sentence the window shows after "The new link cannot replace the old
// one:"; it still matches queue.ErrRelink.
type refusalError struct {
	reason string
	err    error
}

func (e *refusalError) Error() string { return e.reason }
func (e *refusalError) Unwrap() error { return e.err }

// refusal makes a refusal of runner.Relink a refusalError; other errors
// are returned as they are.
func refusal(err error) error {
	if !errors.Is(err, queue.ErrRelink) {
		return err
	}
	text, mark := err.Error(), queue.ErrRelink.Error()+": "
	i := strings.LastIndex(text, mark) // a reason may wrap ErrRelink again
	if i < 0 {
		return err
	}
	return &refusalError{reason: text[i+len(mark):], err: err}
}
