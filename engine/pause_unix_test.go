//go:build unix

package engine

import (
	"context"
	"os/exec"
	"os/signal"
	"syscall"
)

// pauseContext is the crash child's context, canceled by SIGTERM as the
// user's pause or a service manager's stop is.
func pauseContext() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), syscall.SIGTERM)
}

// prepareChild returns how to pause the child once it runs.
func prepareChild(cmd *exec.Cmd) (pause func() error, err error) {
	return func() error { return cmd.Process.Signal(syscall.SIGTERM) }, nil
}
