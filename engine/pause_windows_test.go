package engine

import (
	"context"
	"io"
	"os"
	"os/exec"
	"os/signal"
)

// pauseContext is the crash child's context, canceled when the test
// pauses it: what the user's pause is to the engine. Windows has no
// SIGTERM, and its Ctrl-Break is a console event that only processes on
// one console exchange: under Wine 8 without a terminal (as
// tools/wintest.sh runs the tests) GenerateConsoleCtrlEvent fails with
// "Invalid access". So the test closes the child's standard input, and the
// child takes the end of it as the pause; Ctrl-C and Ctrl-Break pause it
// too.
func pauseContext() (context.Context, context.CancelFunc) {
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt)
	go func() {
		io.Copy(io.Discard, os.Stdin)
		cancel()
	}()
	return ctx, cancel
}

// prepareChild gives the child a standard input the returned pause
// closes.
func prepareChild(cmd *exec.Cmd) (pause func() error, err error) {
	w, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	return w.Close, nil
}
