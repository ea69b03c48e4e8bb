//go:build !windows

package torrent

// udpUnsupported is false: only Wine refuses UDP sockets (see
// udp_windows.go).
func udpUnsupported(error) bool { return false }
