package main

import (
	"bytes"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"braid/engine/mirrortest"
	"braid/internal/testkit"
	"braid/runner"
)

// shortResolveWaits makes get's back-off before a source answers short
// for the test. The waits are the runner's package variables, so a test
// that calls it does not run in parallel with others.
func shortResolveWaits(t *testing.T) {
	first, most := runner.ResolveFirstWait, runner.ResolveMaxWait
	runner.ResolveFirstWait, runner.ResolveMaxWait = 50*time.Millisecond, 200*time.Millisecond
	t.Cleanup(func() { runner.ResolveFirstWait, runner.ResolveMaxWait = first, most })
}

// freeAddr is a loopback address nothing listens on, for a server that
// comes up later.
func freeAddr(t *testing.T) string {
	t.Helper()
	return "127.0.0.1:" + strconv.Itoa(testkit.FreePort(t))
}

// A get started while its server is unreachable waits for it, saying
// why in words, and then downloads, as a download started while the
// Wi-Fi is down should.
func TestGetWaitsForTheSourceServer(t *testing.T) {
	shortResolveWaits(t)
	data := mirrortest.Bytes(300<<10, 7)
	addr := freeAddr(t)
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.ServeContent(w, r, "f.bin", time.Unix(0, 0), bytes.NewReader(data))
	})}
	up := make(chan error, 1)
	go func() {
		// Down for a while: get's first tries are refused.
		time.Sleep(time.Second)
		l, err := net.Listen("tcp", addr)
		if err != nil {
			up <- err
			return
		}
		up <- nil
		srv.Serve(l)
	}()
	t.Cleanup(func() { srv.Close() })
	out := t.TempDir()
	code, _, stderr := runGet(t, "-d", out, "http://"+addr+"/f.bin")
	if err := <-up; err != nil {
		t.Skipf("the port was taken meanwhile: %v", err)
	}
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "waiting for the network, next try in") {
		t.Fatalf("stderr does not say it waited: %q", stderr)
	}
	// Why, in words, not in Go's ("dial tcp …: connect: connection
	// refused").
	if !strings.Contains(stderr, "(the server refused the connection)") || strings.Contains(stderr, "dial tcp") {
		t.Errorf("stderr does not say why it waits in words: %q", stderr)
	}
	got, err := os.ReadFile(filepath.Join(out, "f.bin"))
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("f.bin: %v, right bytes %v", err, bytes.Equal(got, data))
	}
}

// --retry-for bounds the wait for a server that does not come back; a
// source that is evidently wrong (404) fails at once, without waiting.
func TestGetGivesUpOnTheSourceServer(t *testing.T) {
	shortResolveWaits(t)
	code, _, stderr := runGet(t, "--retry-for", "500ms", "-d", t.TempDir(), "http://"+freeAddr(t)+"/f.bin")
	if code != 1 || !strings.Contains(stderr, "gave up after waiting") {
		t.Fatalf("exit %d, stderr %q: want a failure that says it gave up", code, stderr)
	}
	m := mirrortest.New(t, mirrortest.Bytes(1000, 8))
	code, _, stderr = runGet(t, "-d", t.TempDir(), m.URL()+".missing")
	if code != 1 || strings.Contains(stderr, "waiting for the network") {
		t.Fatalf("exit %d, stderr %q: want a failure at once for a 404", code, stderr)
	}
}
