package platform

import (
	"net"
	"os"
	"syscall"
)

// samePeer reports whether the process at the other end of c runs as this
// user (SO_PEERCRED), a second lock besides the private socket folder.
func samePeer(c net.Conn) bool {
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return false
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return false
	}
	var cred *syscall.Ucred
	var credErr error
	err = raw.Control(func(fd uintptr) {
		cred, credErr = syscall.GetsockoptUcred(int(fd), syscall.SOL_SOCKET, syscall.SO_PEERCRED)
	})
	if err != nil || credErr != nil {
		return false
	}
	return int(cred.Uid) == os.Getuid()
}
