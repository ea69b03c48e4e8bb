//go:build !windows

package remote

import (
	"errors"
	"syscall"
)

// refused reports whether err is a connection refused.
func refused(err error) bool { return errors.Is(err, syscall.ECONNREFUSED) }
