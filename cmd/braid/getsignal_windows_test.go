package main

import (
	"errors"
	"os"
	"os/exec"
	"syscall"
	"testing"

	"golang.org/x/sys/windows"
)

// interrupts on Windows: Ctrl-C and Ctrl-Break are console control events,
// which Go delivers as os.Interrupt. Closing the console, a logoff and a
// shutdown are events Go delivers as SIGTERM; no program can send those,
// and main's signal.NotifyContext takes os.Interrupt and SIGTERM alike.
//
// Ctrl-Break goes to one process group: braid starts in its own
// (CREATE_NEW_PROCESS_GROUP). Ctrl-C cannot be limited to a group, so
// braid gets a console of its own, and the test joins that console to
// press Ctrl-C there, ignoring it itself.
var interrupts = []interrupt{
	{"Ctrl-C", ownConsole, ctrlC},
	{"Ctrl-Break", newProcessGroup, ctrlBreak},
}

var (
	kernel32            = windows.NewLazySystemDLL("kernel32.dll")
	freeConsole         = kernel32.NewProc("FreeConsole")
	attachConsole       = kernel32.NewProc("AttachConsole")
	setConsoleCtrlHandl = kernel32.NewProc("SetConsoleCtrlHandler")
)

func ownConsole(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: windows.CREATE_NEW_CONSOLE}
}

// ctrlC presses Ctrl-C on cmd's console: the test leaves its own console,
// joins cmd's, ignores Ctrl-C itself while it sends it to everyone there,
// and goes back to the console it came from.
func ctrlC(t *testing.T, cmd *exec.Cmd) {
	t.Helper()
	_, _, _ = freeConsole.Call()
	defer func() {
		_, _, _ = freeConsole.Call()
		const attachParent = ^uintptr(0) // ATTACH_PARENT_PROCESS
		_, _, _ = attachConsole.Call(attachParent)
	}()
	if ok, _, err := attachConsole.Call(uintptr(cmd.Process.Pid)); ok == 0 {
		t.Fatalf("join braid's console: %v", err)
	}
	if ok, _, err := setConsoleCtrlHandl.Call(0, 1); ok == 0 {
		t.Fatalf("ignore Ctrl-C in the test: %v", err)
	}
	// The event reaches each process on a thread of its own, later: the
	// test stops ignoring Ctrl-C only at the end of the subtest, when
	// braid has ended, long after its own event came. (Stopping when
	// ctrlC returned, still on braid's console, let a late event end the
	// test binary now and then under Wine.)
	t.Cleanup(func() { setConsoleCtrlHandl.Call(0, 0) })
	if err := windows.GenerateConsoleCtrlEvent(windows.CTRL_C_EVENT, 0); err != nil {
		t.Fatalf("press Ctrl-C on braid's console: %v", err)
	}
}

func newProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: windows.CREATE_NEW_PROCESS_GROUP}
}

func ctrlBreak(t *testing.T, cmd *exec.Cmd) {
	t.Helper()
	err := windows.GenerateConsoleCtrlEvent(windows.CTRL_BREAK_EVENT, uint32(cmd.Process.Pid))
	if err != nil && underWine() && (errors.Is(err, windows.ERROR_INVALID_HANDLE) || errors.Is(err, windows.ERROR_INVALID_ACCESS)) {
		t.Skipf("Wine 8's server delivers only CTRL_C_EVENT: GenerateConsoleCtrlEvent(CTRL_BREAK_EVENT) fails (%v); Ctrl-C is tested instead", err)
	}
	if err != nil {
		t.Fatalf("send Ctrl-Break to braid: %v", err)
	}
}

// underWine reports whether the test runs under Wine, whose ntdll exports
// wine_get_version.
func underWine() bool {
	return windows.NewLazySystemDLL("ntdll.dll").NewProc("wine_get_version").Find() == nil
}

// quitForStacks kills p: Windows has no signal that makes Go write its
// goroutines' stacks.
func quitForStacks(p *os.Process) error { return p.Kill() }
