package remote

import (
	"errors"
	"syscall"

	"golang.org/x/sys/windows"
)

// refused reports whether err is a connection refused: on Windows the
// socket's own WSAECONNREFUSED, which syscall.ECONNREFUSED does not match.
func refused(err error) bool {
	return errors.Is(err, windows.WSAECONNREFUSED) || errors.Is(err, syscall.ECONNREFUSED)
}
