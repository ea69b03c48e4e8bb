package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"braid/engine/mirrortest"
)

// listJobs is `braid queue list --json` of state, run by bin: another
// process, as a user would run it while get runs (in get's own process
// the queue would count as not owned by get).
func listJobs(t *testing.T, bin, state string) []queueJob {
	t.Helper()
	out, err := exec.Command(bin, "queue", "--state", state, "list", "--json").Output()
	if err != nil {
		t.Fatalf("queue list: %v", err)
	}
	var js []queueJob
	if err := json.Unmarshal(out, &js); err != nil {
		t.Fatalf("queue list: %v\n%s", err, out)
	}
	return js
}

// Add first, reach later, for get: while get waits for a server that
// cannot be reached, its job is in the queue at once, waiting with its
// next try; when the server comes up the file lands and the same job is
// done.
func TestGetRecordsTheJobWhileItWaits(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary; skipped with -short")
	}
	bin := buildBraid(t)
	shortResolveWaits(t)
	data := mirrortest.Bytes(200<<10, 9)
	addr := freeAddr(t)
	state, out := t.TempDir(), t.TempDir()
	source := "http://" + addr + "/pub/late.bin"
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	type result struct {
		code   int
		stderr string
	}
	got := make(chan result, 1)
	go func() {
		var o, e bytes.Buffer
		code := cmdGet(ctx, []string{"--state", state, "-d", out, source}, &o, &e)
		got <- result{code, e.String()}
	}()

	// The job shows while get waits.
	var waiting queueJob
	for end := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if js := listJobs(t, bin, state); len(js) == 1 && js[0].NextTry != nil {
			waiting = js[0]
			break
		}
		select {
		case r := <-got:
			t.Fatalf("get ended (exit %d) before its job showed: %s", r.code, r.stderr)
		default:
		}
		if time.Now().After(end) {
			t.Fatalf("no waiting job in the queue while get waits: %+v", listJobs(t, bin, state))
		}
	}
	if waiting.Name != "late.bin" || waiting.Source != source || waiting.State != "running" ||
		!strings.Contains(waiting.Error, "waiting for the network, next try at") {
		t.Errorf("the waiting job: %+v", waiting)
	}

	l, err := net.Listen("tcp", addr)
	if err != nil {
		t.Skipf("the port was taken meanwhile: %v", err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.ServeContent(w, r, "late.bin", time.Unix(0, 0), bytes.NewReader(data))
	})}
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })
	r := <-got
	if r.code != 0 {
		t.Fatalf("get: exit %d: %s", r.code, r.stderr)
	}
	b, err := os.ReadFile(filepath.Join(out, "late.bin"))
	if err != nil || !bytes.Equal(b, data) {
		t.Fatalf("late.bin: %v, right bytes %v", err, bytes.Equal(b, data))
	}
	js := listJobs(t, bin, state)
	if len(js) != 1 || js[0].ID != waiting.ID || js[0].State != "done" || js[0].NextTry != nil || js[0].Bytes != int64(len(data)) {
		t.Fatalf("after the download, the queue holds %+v; want job %d done, %d bytes", js, waiting.ID, len(data))
	}
}

// A get that gives up on a server that never comes up (--retry-for)
// leaves its job failed with the reason, not running.
func TestGetFailsTheJobItGaveUpOn(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary; skipped with -short")
	}
	bin := buildBraid(t)
	shortResolveWaits(t)
	state := t.TempDir()
	source := "http://" + freeAddr(t) + "/never.bin"
	var o, e bytes.Buffer
	if code := cmdGet(context.Background(), []string{"--state", state, "--retry-for", "600ms", "-d", t.TempDir(), source}, &o, &e); code != 1 {
		t.Fatalf("exit %d, want 1: %s", code, e.String())
	}
	js := listJobs(t, bin, state)
	if len(js) != 1 || js[0].State != "failed" || js[0].NextTry != nil || !strings.Contains(js[0].Error, "gave up after waiting") {
		t.Fatalf("the queue holds %+v; want one failed job that says it gave up", js)
	}
}

// A link waited for whose server, once up, names the file otherwise
// (Content-Disposition) ends as one job, of the file by the server's name:
// the job recorded while waiting, named after the link, is not left
// behind.
func TestGetWaitedJobTakesTheServersName(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary; skipped with -short")
	}
	bin := buildBraid(t)
	shortResolveWaits(t)
	data := mirrortest.Bytes(100<<10, 12)
	addr := freeAddr(t)
	state, out := t.TempDir(), t.TempDir()
	source := "http://" + addr + "/download?id=7"
	got := make(chan int, 1)
	var e bytes.Buffer
	go func() {
		var o bytes.Buffer
		got <- cmdGet(context.Background(), []string{"--state", state, "-d", out, source}, &o, &e)
	}()
	for end := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if js := listJobs(t, bin, state); len(js) == 1 && js[0].NextTry != nil {
			if js[0].Name != "download" {
				t.Errorf("the waiting job is called %q, want download (after the link)", js[0].Name)
			}
			break
		}
		if time.Now().After(end) {
			t.Fatal("no waiting job in the queue while get waits")
		}
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		t.Skipf("the port was taken meanwhile: %v", err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Disposition", `attachment; filename="report-7.pdf"`)
		http.ServeContent(w, r, "", time.Unix(0, 0), bytes.NewReader(data))
	})}
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })
	if code := <-got; code != 0 {
		t.Fatalf("get: exit %d: %s", code, e.String())
	}
	if b, err := os.ReadFile(filepath.Join(out, "report-7.pdf")); err != nil || !bytes.Equal(b, data) {
		t.Fatalf("report-7.pdf: %v, right bytes %v", err, bytes.Equal(b, data))
	}
	js := listJobs(t, bin, state)
	if len(js) != 1 || js[0].Name != "report-7.pdf" || js[0].State != "done" {
		t.Fatalf("the queue holds %+v; want one job, report-7.pdf, done", js)
	}
}
