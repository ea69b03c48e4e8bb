package runner

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"

	"braid/queue"
)

// prepareDest makes sure the job's folder is there and writable. A folder
// that is missing is made for a job that has not started; for one with
// progress it is a vanished folder (an unplugged disk, say) and the job
// pauses rather than start over somewhere the user did not mean.
func prepareDest(j queue.Job) error {
	fi, err := os.Stat(j.Dest)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		for _, f := range j.Files {
			if f.Selected && (f.Done > 0 || f.Verified) {
				return queue.PauseError(fmt.Sprintf("the destination folder %s no longer exists", j.Dest), err)
			}
		}
		if err := os.MkdirAll(j.Dest, 0o755); err != nil {
			return destProblem(j.Dest, err)
		}
	case err != nil:
		return destProblem(j.Dest, err)
	case !fi.IsDir():
		return queue.PauseError(fmt.Sprintf("the destination %s is not a folder", j.Dest), fs.ErrInvalid)
	}
	// Permission bits do not tell (root, ACLs, a read-only mount): try.
	// A name of its own: jobs going to one folder start side by side.
	f, err := os.CreateTemp(j.Dest, ".braid-probe-*")
	if err != nil {
		return destProblem(j.Dest, err)
	}
	f.Close()
	return os.Remove(f.Name())
}

// destProblem turns a file-system error about the destination into the
// pause the user can act on (queue.PauseError), or returns it as it is.
func destProblem(dest string, err error) error {
	switch {
	case errors.Is(err, fs.ErrPermission), errors.Is(err, syscall.EROFS):
		return queue.PauseError(fmt.Sprintf("the destination folder %s is read-only", dest), err)
	case errors.Is(err, syscall.ENOSPC):
		return queue.PauseError(fmt.Sprintf("the disk of %s is full", dest), err)
	case errors.Is(err, fs.ErrNotExist):
		if _, statErr := os.Stat(dest); errors.Is(statErr, fs.ErrNotExist) {
			return queue.PauseError(fmt.Sprintf("the destination folder %s no longer exists", dest), err)
		}
	}
	return err
}
