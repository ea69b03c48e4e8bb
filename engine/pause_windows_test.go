package engine

import (
	"os"
	"os/exec"
	"syscall"

	"golang.org/x/sys/windows"
)

// pauseSignals pause a crash child. Windows has no SIGTERM: Ctrl-C and
// Ctrl-Break are console control events, which Go delivers as
// os.Interrupt.
var pauseSignals = []os.Signal{os.Interrupt}

// prepareChild starts the child in a process group of its own, so that a
// Ctrl-Break sent to it reaches it alone, not the test.
func prepareChild(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: windows.CREATE_NEW_PROCESS_GROUP}
}

// pauseChild sends the child's group a Ctrl-Break, as a console does.
func pauseChild(cmd *exec.Cmd) error {
	return windows.GenerateConsoleCtrlEvent(windows.CTRL_BREAK_EVENT, uint32(cmd.Process.Pid))
}
