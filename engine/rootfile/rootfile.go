// Package rootfile removes and renames files inside an os.Root the same
// way on every system Braid runs on, and waits, saying so, while another
// program holds a file open.
//
// On Windows a file that another program has open (a media player, a
// virus scanner, a backup tool) cannot be renamed or removed until that
// program closes it; on Unix it can. A download that has every byte must
// not fail for that: Retry waits for the file, bounded by the context.
package rootfile

import (
	"context"
	"fmt"
	"os"
	"time"
)

// Remove removes the file or empty folder name inside r, like r.Remove.
// On Windows it also works where the system lacks the call os.Root uses
// (Wine; see remove_windows.go).
func Remove(r *os.Root, name string) error { return remove(r, name) }

// RemoveAll removes dir and everything in it, like os.RemoveAll, also
// where the system lacks the call os.RemoveAll uses on Windows.
func RemoveAll(dir string) error { return removeAll(dir) }

// Held reports whether err says that another program holds the file open
// (Windows: a sharing or lock violation, or access denied, as Windows
// answers for a file with a delete pending). It is never true on systems
// where an open file can be renamed and removed.
func Held(err error) bool { return held(err) }

// The back-off between tries while a file is held: short at first, since
// a virus scanner holds a new file for a moment, then at most every
// maxDelay, since a player holds it until it is closed.
const (
	firstDelay = 50 * time.Millisecond
	maxDelay   = 2 * time.Second
)

// Retry runs op until it succeeds, fails for a reason other than Held, or
// ctx ends. The first time op fails with Held it calls wait(true), and
// wait(false) when the wait is over, whatever its end, so that the caller
// can tell the user why nothing happens. A context that ends during the
// wait gives an error that wraps both ctx's error and op's last one.
func Retry(ctx context.Context, op func() error, wait func(waiting bool)) error {
	delay := firstDelay
	waiting := false
	defer func() {
		if waiting && wait != nil {
			wait(false)
		}
	}()
	for {
		err := op()
		if err == nil || !Held(err) {
			return err
		}
		if !waiting {
			waiting = true
			if wait != nil {
				wait(true)
			}
		}
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("%w while waiting for another program to close the file: %w", ctx.Err(), err)
		case <-t.C:
		}
		delay = min(2*delay, maxDelay)
	}
}

// WriteWhole writes the file name inside r whole or not at all: write
// fills NAME.part, which is synced and closed, and then renamed to name
// (waiting, as Retry does, while another program holds it). When write
// or the sync fails, NAME.part is removed and name is left as it was.
func WriteWhole(ctx context.Context, r *os.Root, name string, perm os.FileMode, write func(f *os.File) error) error {
	part := name + ".part"
	f, err := r.OpenFile(part, os.O_RDWR|os.O_CREATE|os.O_TRUNC, perm)
	if err != nil {
		return fmt.Errorf("open %s: %w", part, err)
	}
	err = write(f)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = Remove(r, part)
		return err
	}
	if err := Retry(ctx, func() error { return r.Rename(part, name) }, nil); err != nil {
		return fmt.Errorf("rename %s: %w", part, err)
	}
	return nil
}
