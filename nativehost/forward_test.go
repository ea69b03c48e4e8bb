package nativehost

import (
	"context"
	"errors"
	"strings"
	"testing"

	"braid/internal/testkit"
	"braid/platform"
	"braid/queue"
)

// runningBraid is the running Braid's side of the socket for the tests:
// it owns the queue in state and takes links with Take.
func runningBraid(t *testing.T, state string) (sock string, q *queue.Queue, woken *int) {
	t.Helper()
	q, err := queue.Open(state)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { q.Close() })
	sock = socketPath(t)
	in, err := platform.Listen(sock)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	n := 0
	go func() {
		defer close(done)
		_ = in.Serve(ctx, func(h platform.Handoff) (platform.Answer, error) {
			if h.Add == nil {
				return platform.Answer{}, errors.New("only links here")
			}
			return Take(ctx, q, *h.Add, AddOptions{Wake: func() { n++ }})
		})
	}()
	t.Cleanup(func() { cancel(); <-done })
	return sock, q, &n
}

// socketPath is a socket (a pipe on Windows) of the test's own, as
// platform.SocketPath names it for a runtime folder of the test's own.
func socketPath(t *testing.T) string {
	t.Helper()
	dir := testkit.ShortDir(t, "bsock") // Unix socket paths are short
	return platform.SocketPath(func(k string) string {
		if k == "XDG_RUNTIME_DIR" {
			return dir
		}
		return ""
	})
}

func forwardTo(sock string) func(context.Context, platform.Link) (platform.Answer, error) {
	return func(ctx context.Context, l platform.Link) (platform.Answer, error) {
		return platform.Forward(ctx, sock, platform.Handoff{Add: &l})
	}
}

// With a Braid running, the host hands the link over: the running Braid
// reads it with the browser's cookie and user agent, adds the job to the
// queue it owns and keeps the cookie in its memory (no keyring here), so
// its runner has it; the host never opens the queue.
//
// Not parallel: it sets the queue's process-wide keyring
// (queue.UseKeyring), which also resets the once-per-process note that
// secrets are kept for the session only.
func TestAddHandsOverToTheRunningBraid(t *testing.T) {
	queue.UseKeyring(nil)
	t.Cleanup(func() { queue.UseKeyring(nil) })
	srv, _ := loginServer(t)
	state, dl := t.TempDir(), t.TempDir()
	sock, q, woken := runningBraid(t, state)
	hostWoken := 0
	got := call(t, Options{StateDir: state, Dir: dl, Forward: forwardTo(sock), Wake: func() { hostWoken++ }},
		`{"id":1,"type":"add","url":"`+srv.URL+`/files/report.pdf","userAgent":"TestBrowser/1.0","filename":"r.pdf",
		  "cookies":[{"name":"session","value":"`+secret+`","path":"/"}]}`)
	if got[0]["ok"] != true || got[0]["name"] != "r.pdf" || got[0]["job"] == nil {
		t.Fatalf("add: %v", got[0])
	}
	if *woken != 1 || hostWoken != 0 {
		t.Errorf("the running Braid was woken %d times and the host's Wake called %d times, want 1 and 0", *woken, hostWoken)
	}
	j, err := q.Get(int64(got[0]["job"].(float64)))
	if err != nil {
		t.Fatal(err)
	}
	if j.Dest != dl || j.Files[0].Name != "r.pdf" {
		t.Errorf("job %+v", j)
	}
	// The running Braid holds the cookie: its runner would send it.
	net, ok, lost, err := q.Net(j.ID)
	if err != nil || !ok || lost || len(net.Headers) != 1 || !strings.Contains(net.Headers[0], secret) || net.UserAgent != "TestBrowser/1.0" {
		t.Errorf("the running Braid's settings for the job: ok %v lost %v err %v, %d headers, user agent %q", ok, lost, err, len(net.Headers), net.UserAgent)
	}
	if !q.Owner() {
		t.Error("the running Braid lost the queue to the host")
	}
}

// A refusal of the running Braid is the answer (the link's own error,
// without the cookie), not a second try by the host.
func TestAddHandedOverFailsWithoutCookieInError(t *testing.T) {
	t.Parallel()
	srv, _ := loginServer(t)
	state := t.TempDir()
	sock, q, _ := runningBraid(t, state)
	got := call(t, Options{StateDir: state, Dir: t.TempDir(), Forward: forwardTo(sock)},
		`{"id":1,"type":"add","url":"`+srv.URL+`/f.bin","userAgent":"TestBrowser/1.0","cookies":[{"name":"session","value":"wrong-`+secret+`"}]}`)
	msg, _ := got[0]["error"].(string)
	if got[0]["ok"] != false || !strings.Contains(msg, "403") || strings.Contains(msg, secret) {
		t.Errorf("answer %v: want the status, never the cookie", got[0])
	}
	if jobs, err := q.List(); err != nil || len(jobs) != 0 {
		t.Errorf("jobs %v (%v), want none", jobs, err)
	}
}

// A running Braid of another state folder does not take the link: the
// host adds it to its own queue.
func TestAddForAnotherQueueStaysWithTheHost(t *testing.T) {
	t.Parallel()
	srv, _ := loginServer(t)
	sock, other, woken := runningBraid(t, t.TempDir())
	state := t.TempDir()
	got := call(t, Options{StateDir: state, Dir: t.TempDir(), Forward: forwardTo(sock)},
		`{"id":1,"type":"add","url":"`+srv.URL+`/f.bin","userAgent":"TestBrowser/1.0","cookies":[{"name":"session","value":"`+secret+`"}]}`)
	if got[0]["ok"] != true {
		t.Fatalf("add: %v", got[0])
	}
	if jobs, _ := other.List(); len(jobs) != 0 || *woken != 0 {
		t.Errorf("the other queue took the link: %v", jobs)
	}
	q, err := queue.Open(state)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	if jobs, err := q.List(); err != nil || len(jobs) != 1 {
		t.Errorf("the host's queue holds %v (%v), want the link", jobs, err)
	}
}

// With no Braid running, the host queues the link as before; without a
// keyring it says the cookies could not be kept.
//
// Not parallel: it sets the queue's process-wide keyring
// (queue.UseKeyring), which also resets the once-per-process note that
// secrets are kept for the session only.
func TestAddWithNobodyRunning(t *testing.T) {
	queue.UseKeyring(nil)
	t.Cleanup(func() { queue.UseKeyring(nil) })
	srv, _ := loginServer(t)
	state := t.TempDir()
	got := call(t, Options{StateDir: state, Dir: t.TempDir(), Forward: forwardTo(socketPath(t))},
		`{"id":1,"type":"add","url":"`+srv.URL+`/f.bin","userAgent":"TestBrowser/1.0","cookies":[{"name":"session","value":"`+secret+`"}]}`)
	if got[0]["ok"] != true || got[0]["name"] != "f.bin" {
		t.Fatalf("add: %v", got[0])
	}
	if w, _ := got[0]["warning"].(string); !strings.HasPrefix(w, "Braid is not running") || !strings.Contains(w, "add the link again") {
		t.Errorf("warning %q, want that the cookies could not be kept", w)
	}
}
