package runner

import (
	"errors"
	"net"
	"syscall"

	"braid/engine/transport"
)

// NetworkError reports whether reading a source failed for a reason the
// network or a busy server caused, which trying again later can cure.
func NetworkError(err error) bool {
	var re *transport.RetryError
	var op *net.OpError
	var dns *net.DNSError
	var ne net.Error
	switch {
	case errors.Is(err, transport.ErrNotFound), errors.Is(err, transport.ErrDenied),
		errors.Is(err, transport.ErrMismatch), errors.Is(err, transport.ErrUnsupportedScheme):
		return false
	case errors.As(err, &re), errors.As(err, &op), errors.As(err, &dns):
		return true
	case errors.As(err, &ne) && ne.Timeout():
		return true
	}
	return errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.ENETUNREACH) || errors.Is(err, syscall.EHOSTUNREACH)
}
