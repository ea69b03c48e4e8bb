package engine

import (
	"os"
	"os/exec"
	"sync"
	"syscall"

	"golang.org/x/sys/windows"
)

// pauseSignals pause a crash child. Windows has no SIGTERM: Ctrl-C and
// Ctrl-Break are console control events, which Go delivers as
// os.Interrupt.
var pauseSignals = []os.Signal{os.Interrupt}

// prepareChild starts the child in a process group of its own, so that a
// Ctrl-Break sent to it reaches it alone, not the test. A console event
// reaches only processes attached to the sender's console: a test run
// without one (output to a file, as tools/wintest.sh runs it) gets one
// first, which the child inherits.
func prepareChild(cmd *exec.Cmd) {
	consoleOnce.Do(func() {
		// It fails when there is a console already: nothing to do then.
		windows.NewLazySystemDLL("kernel32.dll").NewProc("AllocConsole").Call()
	})
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: windows.CREATE_NEW_PROCESS_GROUP}
}

var consoleOnce sync.Once

// pauseChild sends the child's group a Ctrl-Break, as a console does.
func pauseChild(cmd *exec.Cmd) error {
	return windows.GenerateConsoleCtrlEvent(windows.CTRL_BREAK_EVENT, uint32(cmd.Process.Pid))
}
