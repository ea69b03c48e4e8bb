//go:build !windows

package torrent

import (
	"errors"
	"syscall"
)

// udpUnsupported is false: only Wine refuses UDP sockets (see
// udp_windows.go).
func udpUnsupported(error) bool { return false }

// portBusy reports that a socket could not be bound because its address
// is in use.
func portBusy(err error) bool { return errors.Is(err, syscall.EADDRINUSE) }
