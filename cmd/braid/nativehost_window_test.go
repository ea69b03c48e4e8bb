//go:build linux && !headless

package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"braid/engine/mirrortest"
	"braid/queue"
)

// TestNativeHostStartsTheWindow: with no Braid running, a link handed to
// `braid native-host` (as Chromium starts it) starts the window, which
// takes the link with the browser's login cookie, runs it at once and
// keeps the cookie for its session: the file behind the login lands,
// verified by the server's Digest header. There is no keyring here (no
// D-Bus session), so the cookie lived only in the window's memory; had
// the short-lived host kept it, the download would have been refused.
func TestNativeHostStartsTheWindow(t *testing.T) {
	_, bin, display := realWindow(t)
	body := mirrortest.Bytes(300<<10, 5)
	sum := sha256.Sum256(body)
	var mu sync.Mutex
	var asks []string // cookie ok|user agent of each request for the file
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, _ := r.Cookie("session")
		ok := c != nil && c.Value == hostCookie
		mu.Lock()
		asks = append(asks, strings.Join([]string{map[bool]string{true: "cookie", false: "no cookie"}[ok], r.UserAgent()}, "|"))
		mu.Unlock()
		if !ok {
			http.Error(w, "log in first", http.StatusForbidden)
			return
		}
		w.Header().Set("Digest", "SHA-256="+base64.StdEncoding.EncodeToString(sum[:]))
		http.ServeContent(w, r, "report.bin", time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), bytes.NewReader(body))
	}))
	defer srv.Close()

	b := newBraids(t, bin, display)
	dl := filepath.Join(b.root, "dl")
	if err := os.MkdirAll(dl, 0o700); err != nil {
		t.Fatal(err)
	}
	// The user's download folder, as set in the window's settings.
	q, err := queue.Open(b.state)
	if err != nil {
		t.Fatal(err)
	}
	if err := q.UpdateSettings(func(s *queue.Settings) { s.DownloadDir = dl }); err != nil {
		t.Fatal(err)
	}
	if err := q.Close(); err != nil {
		t.Fatal(err)
	}
	msg, _ := json.Marshal(map[string]any{"id": 1, "type": "add", "url": srv.URL + "/files/report.bin",
		"referrer": srv.URL + "/page", "userAgent": "TestBrowser/1.0",
		"cookies": []map[string]any{{"name": "session", "value": hostCookie, "path": "/"}}})
	var in bytes.Buffer
	_ = binary.Write(&in, binary.NativeEndian, uint32(len(msg)))
	in.Write(msg)

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "native-host", "--state", b.state, "chrome-extension://peaildmplidnbblnghpfijaccoekpnpk/")
	cmd.Env = b.env()
	cmd.Stdin = &in
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	// Stop the window the host started, found by the socket's peer.
	if pid := socketPeer(b.sock); pid > 0 {
		t.Cleanup(func() { stopPID(t, pid) })
	}
	if err != nil {
		t.Fatalf("native-host: %v\n%s", err, stderr.String())
	}
	var reply struct {
		OK            bool
		Job           int64
		Name, Warning string
		Error         string
	}
	if len(out) < 4 || json.Unmarshal(out[4:], &reply) != nil {
		t.Fatalf("the host answered %q", out)
	}
	t.Logf("the host answered %+v", reply)
	if !reply.OK || reply.Job == 0 || reply.Name != "report.bin" {
		t.Fatalf("answer %+v, want report.bin added (stderr %q)", reply, stderr.String())
	}
	if socketPeer(b.sock) <= 0 {
		t.Fatal("no window listens on the socket: the host did not start one")
	}

	q, err = queue.Open(b.state)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	var j queue.Job
	for deadline := time.Now().Add(45 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		if j, err = q.Get(reply.Job); err != nil {
			t.Fatal(err)
		}
		if j.State == queue.Done || j.State == queue.Failed || j.State == queue.Paused || time.Now().After(deadline) {
			break
		}
	}
	if j.State != queue.Done || j.Dest != dl || len(j.Files) != 1 || j.Files[0].VerifiedBy != "sha-256" {
		t.Fatalf("job %d in %s is %s (%s) with files %+v, want done in %s and verified by sha-256", j.ID, j.Dest, j.State, j.Error, j.Files, dl)
	}
	got, err := os.ReadFile(filepath.Join(dl, "report.bin"))
	if err != nil || !bytes.Equal(got, body) {
		t.Fatalf("the file in %s: %d bytes (%v), want the server's %d", dl, len(got), err, len(body))
	}
	t.Logf("report.bin landed: %s", j.Files[0].Outcome())
	mu.Lock()
	if len(asks) == 0 {
		t.Error("the server saw no request for the file")
	}
	for _, a := range asks {
		if a != "cookie|TestBrowser/1.0" {
			t.Errorf("a request for the file came as %q, want the browser's cookie and user agent", a)
		}
	}
	mu.Unlock()
	_ = filepath.WalkDir(b.state, func(p string, e os.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		if raw, _ := os.ReadFile(p); bytes.Contains(raw, []byte(hostCookie)) {
			t.Errorf("%s holds the cookie", p)
		}
		return nil
	})
}

// socketPeer is the process ID of the Braid listening on sock (its peer
// credentials), or 0 when none answers.
func socketPeer(sock string) int {
	c, err := net.Dial("unix", sock)
	if err != nil {
		return 0
	}
	defer c.Close()
	raw, err := c.(*net.UnixConn).SyscallConn()
	if err != nil {
		return 0
	}
	var cred *syscall.Ucred
	_ = raw.Control(func(fd uintptr) {
		cred, _ = syscall.GetsockoptUcred(int(fd), syscall.SOL_SOCKET, syscall.SO_PEERCRED)
	})
	if cred == nil {
		return 0
	}
	return int(cred.Pid)
}

// stopPID ends a process this test did not start as a child (the window
// the native host started) with SIGTERM, and waits for it to go.
func stopPID(t *testing.T, pid int) {
	t.Helper()
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
		return
	}
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if syscall.Kill(pid, 0) != nil {
			return
		}
	}
	t.Errorf("the window (pid %d) still runs 30s after SIGTERM", pid)
	_ = syscall.Kill(pid, syscall.SIGKILL)
}
