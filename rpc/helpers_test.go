package rpc

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"braid/queue"
	"braid/runner"
)

// braid is a real queue in t.TempDir(), a real runner that runs it (again
// whenever the adapter wakes it), and the server over them on loopback.
type braid struct {
	q      *queue.Queue
	dl     *QueueDownloads
	srv    *Server
	http   *httptest.Server
	dir    string // where downloads go
	secret string
	close  func()
}

func newBraid(t testing.TB, o Options) *braid {
	t.Helper()
	return openBraid(t, t.TempDir(), t.TempDir(), o)
}

// openBraid is newBraid on the state folder state, saving in dir. close
// ends it before the test does (a restart).
func openBraid(t testing.TB, state, dir string, o Options) *braid {
	t.Helper()
	return startBraid(t, state, dir, o, loopRunner)
}

// newDaemon is newBraid wired as braid queue run --rpc-listen wires it:
// a runner.Service keeps the queue running, with its engine client made
// from the settings, and the server wakes it.
func newDaemon(t testing.TB, o Options) *braid {
	t.Helper()
	return startBraid(t, t.TempDir(), t.TempDir(), o, serveRunner)
}

// A runs keeps r running the queue until ctx ends, and returns what wakes
// it and a channel closed once it has stopped.
type runs func(ctx context.Context, r *runner.Runner) (wake func(), done <-chan struct{})

// loopRunner runs r.Run again whenever woken (a job's failure is recorded
// in the queue).
func loopRunner(ctx context.Context, r *runner.Runner) (func(), <-chan struct{}) {
	wake := make(chan struct{}, 1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			_ = r.Run(ctx)
			select {
			case <-ctx.Done():
				return
			case <-wake:
			}
		}
	}()
	return func() {
		select {
		case wake <- struct{}{}:
		default:
		}
	}, done
}

// serveRunner keeps r's queue running with a runner.Service.
func serveRunner(ctx context.Context, r *runner.Runner) (func(), <-chan struct{}) {
	svc := runner.NewService(r)
	done := make(chan struct{})
	go func() {
		defer close(done)
		svc.Serve(ctx, true)
	}()
	return svc.Wake, done
}

func startBraid(t testing.TB, state, dir string, o Options, run runs) *braid {
	t.Helper()
	q, err := queue.Open(state)
	if err != nil {
		t.Fatal(err)
	}
	r := &runner.Runner{Queue: q}
	ctx, cancel := context.WithCancel(context.Background())
	wake, done := run(ctx, r)
	b := &braid{q: q, dir: dir, secret: "s3cret-for-tests"}
	b.dl = &QueueDownloads{Queue: q, Live: r, Wake: wake, Reader: r}
	b.dl.SetDir(b.dir)
	if o.Secret == "" {
		o.Secret = b.secret
	}
	b.secret = o.Secret
	if o.Activity == nil {
		// The server reads the queue while r has anything under way,
		// and when told, as the faces wire it (they give the service's).
		o.Activity = r.Activity
	}
	b.srv, err = New(b.dl, o)
	if err != nil {
		t.Fatal(err)
	}
	b.http = httptest.NewServer(b.srv)
	var once sync.Once
	b.close = func() {
		once.Do(func() {
			b.http.Close()
			b.srv.Close()
			cancel()
			<-done
			_ = r.Close()
			q.Close()
		})
	}
	t.Cleanup(b.close)
	return b
}

// post sends one JSON-RPC body and returns the HTTP status and the
// decoded answer.
func (b *braid) post(t *testing.T, body any) (int, map[string]any) {
	t.Helper()
	raw, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Post(b.http.URL+Path, "application/json", bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	var m map[string]any
	if err := json.Unmarshal(out, &m); err != nil {
		t.Fatalf("answer %q: %v", out, err)
	}
	return resp.StatusCode, m
}

// call calls an aria2 method with the token and returns its result; a
// JSON-RPC error fails the test.
func (b *braid) call(t *testing.T, method string, params ...any) any {
	t.Helper()
	status, m := b.post(t, map[string]any{"jsonrpc": "2.0", "id": "t", "method": method,
		"params": append([]any{"token:" + b.secret}, params...)})
	if status != http.StatusOK || m["error"] != nil {
		t.Fatalf("%s: HTTP %d %v", method, status, m["error"])
	}
	return m["result"]
}

// callErr calls a method that must fail and returns aria2's message.
func (b *braid) callErr(t *testing.T, method string, params ...any) string {
	t.Helper()
	status, m := b.post(t, map[string]any{"jsonrpc": "2.0", "id": "t", "method": method,
		"params": append([]any{"token:" + b.secret}, params...)})
	e, _ := m["error"].(map[string]any)
	if status != http.StatusBadRequest || e == nil {
		t.Fatalf("%s: want an error, got HTTP %d %v", method, status, m)
	}
	msg, _ := e["message"].(string)
	return msg
}

// rawParams encodes params as a request carries them.
func rawParams(t testing.TB, params ...any) []json.RawMessage {
	t.Helper()
	out := make([]json.RawMessage, 0, len(params))
	for _, p := range params {
		b, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b)
	}
	return out
}
