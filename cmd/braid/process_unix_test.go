//go:build unix

package main

import (
	"errors"
	"syscall"
)

// processAlive reports whether process pid runs (perhaps as another user).
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
