package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"braid/engine/mirrortest"
	"braid/internal/testkit"
	"braid/platform"
	"braid/queue"
)

// hostCookie is the browser's session cookie in the native host tests;
// no file of the state folder, nor any output, may hold it.
const hostCookie = "s3ss10n-from-the-browser-4e1d"

// `braid queue run` is the user's running Braid for the browsers' native
// host: it listens on the user's socket, adds a link handed over with the
// browser's cookie into -d and runs it with the cookie it keeps for its
// session (no keyring here), verified by the server's Digest. A link for
// another state folder, and a window's sources, are not its own: it
// answers "elsewhere", so the host queues the link itself and the window
// opens beside it.
func TestQueueRunTakesBrowserLinks(t *testing.T) {
	queue.UseKeyring(nil)
	t.Cleanup(func() { queue.UseKeyring(nil) })
	run := testkit.ShortDir(t, "brun") // a socket's path must be short
	t.Setenv("XDG_RUNTIME_DIR", run)
	t.Setenv("BRAID_RPC_SECRET", "rpc-s3cret")
	body := mirrortest.Bytes(200<<10, 6)
	sum := sha256.Sum256(body)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if c, err := r.Cookie("session"); err != nil || c.Value != hostCookie {
			http.Error(w, "log in first", http.StatusForbidden)
			return
		}
		w.Header().Set("Digest", "SHA-256="+base64.StdEncoding.EncodeToString(sum[:]))
		http.ServeContent(w, r, "r.bin", time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), bytes.NewReader(body))
	}))
	defer srv.Close()

	state, dir := t.TempDir(), t.TempDir()
	endpoint, done, out, errOut := startQueueRPC(t, state, dir)
	sock := platform.SocketPath(os.Getenv)
	ctx := context.Background()
	link := platform.Link{URL: srv.URL + "/r.bin", UserAgent: "TestBrowser/1.0", State: state,
		Cookies: []platform.Cookie{{Name: "session", Value: hostCookie, Path: "/"}}}

	other := link
	other.State = t.TempDir()
	if _, err := platform.Forward(ctx, sock, platform.Handoff{Add: &other}); !errors.Is(err, platform.ErrElsewhere) {
		t.Errorf("a link for another queue: %v, want ErrElsewhere", err)
	}
	if _, err := platform.Forward(ctx, sock, platform.Handoff{Args: []string{"x.meta4"}, Dir: "/"}); !errors.Is(err, platform.ErrElsewhere) {
		t.Errorf("a window's sources: %v, want ErrElsewhere", err)
	}
	a, err := platform.Forward(ctx, sock, platform.Handoff{Add: &link})
	if err != nil {
		t.Fatalf("hand the link over: %v\n%s%s", err, out, errOut)
	}
	if a.Job == 0 || a.Name != "r.bin" || !strings.Contains(a.Warning, "keyring") {
		t.Errorf("answer %+v, want job r.bin and the keyring's note", a)
	}

	q, err := queue.Open(state)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	var j queue.Job
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if j, err = q.Get(a.Job); err != nil {
			t.Fatal(err)
		}
		if j.State == queue.Done || j.State == queue.Failed || j.State == queue.Paused || time.Now().After(deadline) {
			break
		}
	}
	if j.State != queue.Done || j.Dest != dir || j.Files[0].VerifiedBy != "sha-256" {
		t.Fatalf("job %d in %s is %s (%s), files %+v: want done in -d %s, verified by sha-256", j.ID, j.Dest, j.State, j.Error, j.Files, dir)
	}
	if got, err := os.ReadFile(filepath.Join(dir, "r.bin")); err != nil || !bytes.Equal(got, body) {
		t.Fatalf("r.bin in -d: %v", err)
	}
	if code, v := rpcCall(t, endpoint, "aria2.shutdown", "token:rpc-s3cret"); code != http.StatusOK {
		t.Fatalf("shutdown: HTTP %d, %v", code, v)
	}
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("queue run ended with %d: %s", code, errOut)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("queue run still serving 20 s after aria2.shutdown")
	}
	if _, err := platform.Forward(ctx, sock, platform.Handoff{Wake: true}); !errors.Is(err, platform.ErrNotRunning) {
		t.Errorf("after queue run ended, the socket: %v, want nobody listening", err)
	}
	if s := out.String() + errOut.String(); strings.Contains(s, hostCookie) || !strings.Contains(s, "added from the browser") {
		t.Errorf("queue run said %q: want the link's job named, never its cookie", s)
	}
}
