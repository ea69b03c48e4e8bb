package runner

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"sync"

	"braid/platform"
	"braid/queue"
)

// What a job does when it is done (issue 23): open its file, show it in
// the file manager, or run a command with its path as the last argument.
// The runner runs the action once, when a run ends with the job done
// (settle), whichever face runs the queue: the window and `braid queue
// run` alike. The action runs beside the queue, not in its way: a failure
// is recorded on the job (queue.WhenDoneNote) for the faces to say, and
// never fails or stops anything.

// actions are the when-done actions under way.
type actions struct {
	wg sync.WaitGroup
}

// WaitActions waits until the when-done actions started so far have ended
// (a command run when done has exited) or ctx ends. A face that exits
// after its run calls it so a command's failure is still recorded.
func (r *Runner) WaitActions(ctx context.Context) error {
	done := make(chan struct{})
	go func() {
		r.after.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// whenDone starts w, job id's action for when it is done (Finish's), if
// it has one. It returns at once; the action runs on its own goroutine.
func (r *Runner) whenDone(id int64, w queue.WhenDone) {
	if w.Action == queue.ActionNone {
		return // the job is read only for an action to run
	}
	q := r.Queue
	j, err := q.Get(id)
	if err != nil {
		return
	}
	target := donePath(j)
	r.after.wg.Add(1)
	go func() {
		defer r.after.wg.Done()
		note := queue.WhenDoneNote{}
		if err := runAction(w, target, j.Dest); err != nil {
			note = queue.WhenDoneNote{Kind: w.Action, Detail: err.Error()}
		}
		// The job may be gone meanwhile: nothing to say it on then.
		_ = q.SetJob(id, queue.WhenDoneWent(note))
		if r.ActionEnded != nil {
			r.ActionEnded(id)
		}
	}()
}

// donePath is what a done job's action is given: its one selected file,
// or for several the folder they all share under the job's folder (a
// torrent's folder), else the job's folder.
func donePath(j queue.Job) string {
	var names []string
	for _, f := range j.Files {
		if f.Selected {
			names = append(names, f.Path())
		}
	}
	if len(names) == 1 {
		return filepath.Join(j.Dest, filepath.FromSlash(names[0]))
	}
	common := ""
	for i, n := range names {
		dir := path.Dir(n)
		if i == 0 {
			common = dir
		}
		for common != "." && dir != common && !strings.HasPrefix(dir, common+"/") {
			common = path.Dir(common)
		}
	}
	if common == "" || common == "." {
		return j.Dest
	}
	return filepath.Join(j.Dest, filepath.FromSlash(common))
}

// runAction does w with the file at target, a command in the folder dir.
func runAction(w queue.WhenDone, target, dir string) error {
	switch w.Action {
	case queue.ActionOpen:
		return platform.OpenFile(target)
	case queue.ActionShow:
		return platform.ShowInFolder(target)
	case queue.ActionCommand:
		return runCommand(w.Command, target, dir)
	}
	return fmt.Errorf("unknown action %q", w.Action)
}

// stderrKept is how much of a command's stderr a failure quotes.
const stderrKept = 4 << 10

// runCommand runs command's words as a program and its arguments, with
// target as one more argument of its own, and waits for it. No shell
// reads any of it: a file named `$(rm -rf ~).mkv` is an argument, not a
// command. The error says how it ended and the first line it wrote to
// stderr.
func runCommand(command, target, dir string) error {
	argv, err := queue.SplitCommand(command)
	if err != nil {
		return err
	}
	cmd := exec.Command(argv[0], append(argv[1:], target)...)
	cmd.Dir = dir
	var stderr limited
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if line, _, _ := strings.Cut(strings.TrimSpace(stderr.String()), "\n"); line != "" && errors.As(err, &ee) {
			return fmt.Errorf("%s: %w: %s", argv[0], err, line)
		}
		return fmt.Errorf("%s: %w", argv[0], err)
	}
	return nil
}

// limited keeps the first stderrKept bytes written to it and takes the
// rest without keeping it, so a chatty command neither blocks nor fills
// memory.
type limited struct{ bytes.Buffer }

func (l *limited) Write(p []byte) (int, error) {
	if room := stderrKept - l.Len(); room > 0 {
		l.Buffer.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}
