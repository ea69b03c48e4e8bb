package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"

	"braid/queue"
	"braid/runner"
)

// queueCheck verifies (repair false) or repairs job id where its files
// are, as the window's Verify and Repair do (runner.Service.Check),
// saying what it found of each file, then how the job ended: an error
// when it failed, or when it could not be checked.
func queueCheck(ctx context.Context, q *queue.Queue, id int64, repair bool, w io.Writer) error {
	say := &checkSay{w: w, ended: make(chan error, 1)}
	svc := runner.NewService(&runner.Runner{Queue: q, Observer: say})
	defer svc.Wait()
	if err := svc.Check(ctx, id, repair); err != nil {
		return err
	}
	if err := <-say.ended; err != nil {
		if ctx.Err() != nil {
			return errors.New("interrupted; what was checked so far is kept with the job")
		}
		return err
	}
	j, err := q.Get(id)
	if err != nil {
		return err
	}
	switch j.State {
	case queue.Done:
		fmt.Fprintf(w, "job %d: done\n", id)
	case queue.Queued:
		fmt.Fprintf(w, "job %d: queued: its next run fetches what is gone or bad (the window or braid queue run)\n", id)
	default:
		return fmt.Errorf("job %d %s: %s", id, j.State, queue.Redact(j.Error))
	}
	return nil
}

// checkSay is a check's runner.Observer for braid queue verify and
// repair: a line for each file checked, and the check's end.
type checkSay struct {
	runner.Quiet // a check tells none of a download's events
	mu           sync.Mutex
	w            io.Writer
	ended        chan error
}

func (c *checkSay) Check(e runner.CheckEvent) {
	switch e.Kind {
	case runner.CheckFileDone:
		f := e.File
		line := "verified (" + queue.ProofWords(f.By) + ")"
		switch {
		case f.Err != nil:
			line = f.Err.Error()
		case f.Nothing:
			line = fmt.Sprintf("not verified: nothing was published to check it against; it is in its folder with its %s", byteText(f.Size))
		case f.By == "":
			line = "not verified"
		}
		c.mu.Lock()
		fmt.Fprintf(c.w, "%s: %s\n", f.Name, line)
		c.mu.Unlock()
	case runner.CheckEnded:
		c.ended <- e.Err
	}
}
