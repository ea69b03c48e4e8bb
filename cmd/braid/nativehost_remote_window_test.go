//go:build linux && !headless

package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"braid/engine/mirrortest"
	"braid/internal/testkit"
	"braid/queue"
	"braid/ui"
)

// TestNativeHostLinkToRemote: while the window shows an aria2c's
// downloads (the choice saved in Settings → Downloads run on), a link
// handed to `braid native-host` goes there, with aria2.addUri: the host
// answers with the file's name and says where it went, the aria2c fetches
// it with the browser's cookie and user agent, and this computer's queue
// gets nothing. The cookie is in no file of the state folder.
func TestNativeHostLinkToRemote(t *testing.T) {
	_, bin, display := realWindow(t)
	d := aria2cDaemon(t)
	body := mirrortest.Bytes(200<<10, 7)
	var mu sync.Mutex
	var asks []string // cookie ok|user agent of each request for the file
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, _ := r.Cookie("session")
		ok := c != nil && c.Value == hostCookie
		mu.Lock()
		asks = append(asks, map[bool]string{true: "cookie", false: "no cookie"}[ok]+"|"+r.UserAgent())
		mu.Unlock()
		if !ok {
			http.Error(w, "log in first", http.StatusForbidden)
			return
		}
		http.ServeContent(w, r, "report.bin", time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), bytes.NewReader(body))
	}))
	defer srv.Close()

	b := newBraids(t, bin, display)
	q, err := queue.Open(b.state)
	if err != nil {
		t.Fatal(err)
	}
	if err := q.UpdateSettings(func(st *queue.Settings) {
		st.Connections, st.RunOn = []queue.Connection{{Name: "nas", URL: d.endpoint}}, d.endpoint
	}); err != nil {
		t.Fatal(err)
	}
	if err := q.Close(); err != nil {
		t.Fatal(err)
	}
	// No keyring here: the secret comes from the environment, as the
	// note for a system without one says.
	cmd := exec.Command(bin, "--state", b.state)
	cmd.Env = b.env(remoteSecretEnv + "=" + d.secret)
	w := &window{cmd: cmd, out: &syncBuffer{}, done: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = w.out, w.out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		w.err = cmd.Wait()
		close(w.done)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-w.done
		if t.Failed() {
			t.Logf("the window's output:\n%s", w.out)
		}
	})
	b.waitAnswering(t, w)

	msg, _ := json.Marshal(map[string]any{"id": 1, "type": "add", "url": srv.URL + "/files/report.bin",
		"referrer": srv.URL + "/page", "userAgent": "TestBrowser/1.0",
		"cookies": []map[string]any{{"name": "session", "value": hostCookie, "path": "/"}}})
	var in bytes.Buffer
	_ = binary.Write(&in, binary.NativeEndian, uint32(len(msg)))
	in.Write(msg)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	host := exec.CommandContext(ctx, bin, "native-host", "--state", b.state, "chrome-extension://peaildmplidnbblnghpfijaccoekpnpk/")
	host.Env = b.env()
	host.Stdin = &in
	var stderr bytes.Buffer
	host.Stderr = &stderr
	out, err := host.Output()
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
	want := "Added to the downloads at " + d.endpoint + ", which the open Braid window shows."
	if !reply.OK || reply.Name != "report.bin" || reply.Warning != want {
		t.Fatalf("answer %+v, want report.bin added, saying %q", reply, want)
	}

	rb := remoteBackend(t, d)
	testkit.WaitWithin(t, 45*time.Second, "report.bin done on the aria2c", func() bool {
		jobs, err := rb.Jobs()
		if err != nil {
			return false
		}
		for _, j := range jobs {
			if j.Name == "report.bin" && j.State == ui.Done {
				return true
			}
		}
		return false
	})
	if got, err := os.ReadFile(filepath.Join(d.dir, "report.bin")); err != nil || !bytes.Equal(got, body) {
		t.Fatalf("the aria2c's report.bin: %d bytes (%v), want the server's %d", len(got), err, len(body))
	}
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

	q, err = queue.Open(b.state)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	if jobs, err := q.List(); err != nil || len(jobs) != 0 {
		t.Errorf("this computer's queue holds %d jobs (%v), want none", len(jobs), err)
	}
	if files := folderHolds(b.state, hostCookie); len(files) > 0 {
		t.Errorf("the state folder holds the cookie: %v", files)
	}
	if strings.Contains(w.out.String(), hostCookie) {
		t.Error("the window's output holds the cookie")
	}
}
