//go:build unix

package engine

import (
	"os"
	"os/exec"
	"syscall"
)

// pauseSignals pause a crash child: SIGTERM, as a service manager or
// the user's pause sends.
var pauseSignals = []os.Signal{syscall.SIGTERM}

func prepareChild(*exec.Cmd) {}

// pauseChild asks the child to pause.
func pauseChild(cmd *exec.Cmd) error { return cmd.Process.Signal(syscall.SIGTERM) }
