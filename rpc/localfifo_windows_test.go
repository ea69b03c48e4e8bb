package rpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/windows"
)

// An addUri of a named pipe (\\.\pipe\NAME, which os.Open reads like a
// file, and which blocks a reader until the pipe's server writes) answers
// at once, and no client ever connected to the pipe. Windows' form of
// localfifo_test.go.
func TestAddURIOfFIFODoesNotHang(t *testing.T) {
	t.Parallel()
	b := newBraid(t, Options{})
	name := `\\.\pipe\braid-rpc-test-` + strconv.FormatInt(time.Now().UnixNano(), 36)
	p, err := windows.UTF16PtrFromString(name)
	if err != nil {
		t.Fatal(err)
	}
	// PIPE_NOWAIT: ConnectNamedPipe below tells at once whether a client
	// came, instead of waiting for one.
	h, err := windows.CreateNamedPipe(p, windows.PIPE_ACCESS_DUPLEX,
		windows.PIPE_TYPE_BYTE|windows.PIPE_READMODE_BYTE|windows.PIPE_NOWAIT, 1, 4096, 4096, 0, nil)
	if err != nil {
		t.Fatalf("create the pipe %s: %v", name, err)
	}
	defer windows.CloseHandle(h)
	for _, src := range []string{name, "file:" + strings.ReplaceAll(name, `\`, "/")} {
		body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": "f", "method": "aria2.addUri",
			"params": []any{"token:" + b.secret, []string{src}}})
		c := &http.Client{Timeout: 10 * time.Second}
		resp, err := c.Post(b.http.URL+Path, "application/json", bytes.NewReader(body))
		if err != nil {
			t.Fatalf("addUri %s: %v (the call hangs on the pipe)", src, err)
		}
		out, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(out), "No URI to download.") {
			t.Errorf("addUri %s: HTTP %d %s", src, resp.StatusCode, out)
		}
	}
	switch err := windows.ConnectNamedPipe(h, nil); {
	case errors.Is(err, windows.ERROR_PIPE_LISTENING):
		// No client came: nothing opened the pipe.
	case errors.Is(err, windows.ERROR_PIPE_CONNECTED), err == nil:
		t.Fatal("something opened the pipe")
	default:
		t.Fatalf("ask the pipe whether a client came: %v", err)
	}
}
