package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"braid/engine/mirrortest"
)

// syncBuffer is a bytes.Buffer that a writer (a child's output, a
// command running in a goroutine) and the test may use at once.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.String()
}

// `braid queue run --rpc-listen` answers aria2's JSON-RPC: the secret from
// BRAID_RPC_SECRET is required (a wrong token gets aria2's 400
// Unauthorized), a download added with aria2.addUri lands in -d, the
// queue keeps serving while empty, and aria2.shutdown ends the run.
func TestQueueRunServesRPC(t *testing.T) {
	data := mirrortest.Bytes(300<<10, 21)
	m := mirrortest.New(t, data)
	state, dir := t.TempDir(), t.TempDir()
	t.Setenv("BRAID_RPC_SECRET", "rpc-s3cret")
	endpoint, done, out, errOut := startQueueRPC(t, state, dir)
	call := func(method string, params ...any) (int, map[string]any) {
		t.Helper()
		return rpcCall(t, endpoint, method, params...)
	}
	if code, v := call("aria2.getGlobalStat", "token:wrong"); code != http.StatusBadRequest || !strings.Contains(jsonText(v["error"]), "Unauthorized") {
		t.Fatalf("wrong token: HTTP %d, %v; want 400 Unauthorized", code, v)
	}
	code, v := call("aria2.addUri", "token:rpc-s3cret", []string{m.URL()}, map[string]any{"out": "f.bin"})
	if code != http.StatusOK {
		t.Fatalf("addUri: HTTP %d, %v", code, v)
	}
	gid, _ := v["result"].(string)
	if len(gid) != 16 {
		t.Fatalf("addUri gave %v, want a 16-digit GID", v)
	}
	for deadline := time.Now().Add(30 * time.Second); ; {
		_, st := call("aria2.tellStatus", "token:rpc-s3cret", gid, []string{"status"})
		if r, _ := st["result"].(map[string]any); r != nil && r["status"] == "complete" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("not complete in 30 s: %v", st)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if got, err := os.ReadFile(filepath.Join(dir, "f.bin")); err != nil || !bytes.Equal(got, data) {
		t.Fatalf("f.bin in -d: %v, right bytes %v", err, bytes.Equal(got, data))
	}
	if code, v := call("aria2.shutdown", "token:rpc-s3cret"); code != http.StatusOK {
		t.Fatalf("shutdown: HTTP %d, %v", code, v)
	}
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("queue run ended with %d: %s", code, errOut.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatal("queue run still serving 20 s after aria2.shutdown")
	}
	if strings.Contains(out.String()+errOut.String(), "rpc-s3cret") {
		t.Error("the secret is in queue run's output")
	}
	// Its one job was done: nothing was paused by the shutdown.
	if o := out.String(); !strings.Contains(o, "stopped\n") || strings.Contains(o, "paused") {
		t.Errorf("an idle queue run's shutdown said:\n%s", o)
	}
}

// startQueueRPC runs `braid queue run --rpc-listen 127.0.0.1:0` on state,
// saving in dir, with the flags extra after (a later --rpc-listen wins),
// and returns the endpoint it says it answers on (on 127.0.0.1 for a
// listener on every address), the channel its exit status comes on, and
// its output so far.
func startQueueRPC(t *testing.T, state, dir string, extra ...string) (endpoint string, done <-chan int, out, errOut *syncBuffer) {
	t.Helper()
	out, errOut = &syncBuffer{}, &syncBuffer{}
	exit := make(chan int, 1)
	go func() {
		args := append([]string{"--state", state, "run", "-d", dir, "--rpc-listen", "127.0.0.1:0"}, extra...)
		exit <- cmdQueue(context.Background(), args, out, errOut)
	}()
	addr := regexp.MustCompile(`answering aria2 JSON-RPC on (https?)://\S*:(\d+)/jsonrpc`)
	for deadline := time.Now().Add(20 * time.Second); ; {
		if m := addr.FindStringSubmatch(out.String()); m != nil {
			return m[1] + "://127.0.0.1:" + m[2] + "/jsonrpc", exit, out, errOut
		}
		select {
		case code := <-exit:
			t.Fatalf("queue run ended (%d): %s %s", code, out.String(), errOut.String())
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("no RPC address said in 20 s: %q", out.String())
		}
	}
}

// rpcCall posts one JSON-RPC call and returns the HTTP status and the
// decoded answer.
func rpcCall(t *testing.T, endpoint, method string, params ...any) (int, map[string]any) {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": "1", "method": method, "params": params})
	resp, err := http.Post(endpoint, "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var v map[string]any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("%s: not JSON: %q", method, raw)
	}
	return resp.StatusCode, v
}

func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
