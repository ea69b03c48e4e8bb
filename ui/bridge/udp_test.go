package bridge

import (
	"net"
	"runtime"
	"strings"
	"testing"
)

// needUDP skips a BitTorrent test where the system cannot open a UDP
// socket for Go: Wine 8 answers WSAIoctl(SIO_UDP_CONNRESET), which Go's
// net calls for every UDP socket on Windows, with WSAEOPNOTSUPP (10045).
// The BitTorrent client listens on UDP (uTP, DHT) before anything else.
func needUDP(t *testing.T) {
	t.Helper()
	c, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil && runtime.GOOS == "windows" && strings.Contains(err.Error(), "wsaioctl") {
		t.Skipf("Go cannot open a UDP socket here (Wine 8 lacks SIO_UDP_CONNRESET): %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
}
