package torrent

import (
	"fmt"
	"net"
	"strings"
	"testing"

	"braid/internal/testkit"
)

// A client closed and started again on the same fixed port starts: the
// library closes its sockets in goroutines of their own, so without a
// wait the next start found the port still held (1 round in 6 here).
func TestStartAgainOnTheSamePort(t *testing.T) {
	t.Parallel()
	port := testkit.FreePort(t)
	for i := range 20 {
		c := NewClient(Config{ListenHost: "127.0.0.1", ListenPort: port})
		if _, err := c.client(); err != nil {
			t.Fatalf("start %d on port %d after closing the one before: %v", i+1, port, err)
		}
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// A port another program holds is said in a sentence, after the wait.
func TestPortHeldByAnotherProgram(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	port := l.Addr().(*net.TCPAddr).Port
	c := NewClient(Config{ListenHost: "127.0.0.1", ListenPort: port})
	defer c.Close()
	_, err = c.client()
	if want := fmt.Sprintf("port %d is in use by another program", port); err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("start on a held port: %v, want an error saying %q", err, want)
	}
}
