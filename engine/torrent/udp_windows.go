package torrent

import (
	"errors"

	"golang.org/x/sys/windows"
)

// udpUnsupported reports the error Go gives for every UDP socket under
// Wine 8, which people use to run Windows programs on Linux and macOS:
// Go turns off SIO_UDP_NETRESET on each UDP socket it opens on Windows,
// and Wine 8 answers WSAEOPNOTSUPP, so the socket is never made.
func udpUnsupported(err error) bool { return errors.Is(err, windows.WSAEOPNOTSUPP) }

// portBusy reports that a socket could not be bound because its address
// is in use.
func portBusy(err error) bool { return errors.Is(err, windows.WSAEADDRINUSE) }
