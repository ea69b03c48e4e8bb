//go:build !windows

package rpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// An addUri of a FIFO answers at once and leaves the FIFO unopened: Braid
// once opened it to read a metalink, which hung the call (and a thread)
// until something wrote to it.
func TestAddURIOfFIFODoesNotHang(t *testing.T) {
	t.Parallel()
	b := newBraid(t, Options{})
	fifo := filepath.Join(t.TempDir(), "list.meta4")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, src := range []string{fifo, "file://" + fifo} {
		body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": "f", "method": "aria2.addUri",
			"params": []any{"token:" + b.secret, []string{src}}})
		c := &http.Client{Timeout: 10 * time.Second}
		resp, err := c.Post(b.http.URL+Path, "application/json", bytes.NewReader(body))
		if err != nil {
			t.Fatalf("addUri %s: %v (the call hangs on the FIFO)", src, err)
		}
		out, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(out), "No URI to download.") {
			t.Errorf("addUri %s: HTTP %d %s", src, resp.StatusCode, out)
		}
	}
	// Opening a FIFO to write without waiting fails with ENXIO while no
	// reader has it open: nothing in Braid does.
	fd, err := syscall.Open(fifo, syscall.O_WRONLY|syscall.O_NONBLOCK, 0)
	if err == nil {
		syscall.Close(fd)
		t.Fatal("something holds the FIFO open for reading")
	}
	if !errors.Is(err, syscall.ENXIO) {
		t.Fatalf("open the FIFO to write: %v", err)
	}
}
