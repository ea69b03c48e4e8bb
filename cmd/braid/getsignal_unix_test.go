//go:build unix

package main

import (
	"os"
	"os/exec"
	"syscall"
	"testing"
)

// interrupts on Unix: Ctrl-C in a terminal is SIGINT; SIGTERM is what a
// logout, a shutdown or `kill` sends.
var interrupts = []interrupt{
	{"SIGINT", func(*exec.Cmd) {}, send(os.Interrupt)},
	{"SIGTERM", func(*exec.Cmd) {}, send(syscall.SIGTERM)},
}

func send(s os.Signal) func(*testing.T, *exec.Cmd) {
	return func(t *testing.T, cmd *exec.Cmd) {
		t.Helper()
		if err := cmd.Process.Signal(s); err != nil {
			t.Fatal(err)
		}
	}
}

// quitForStacks asks p for its goroutines' stacks, which Go writes to
// stderr on SIGQUIT before it exits.
func quitForStacks(p *os.Process) error { return p.Signal(syscall.SIGQUIT) }
