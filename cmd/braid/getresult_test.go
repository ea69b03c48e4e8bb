package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"braid/engine"
	"braid/engine/mirrortest"
	"braid/runner"
)

// A plain URL with no hash anywhere is done but not verified, and says so;
// --require-hash makes that a failure.
func TestGetSaysWhatWasChecked(t *testing.T) {
	t.Parallel()
	data := getData(300<<10 + 1)
	m := mirrortest.New(t, data, mirrortest.Path("/pub/plain.bin"))
	t.Run("no hash: not verified, exit 0", func(t *testing.T) {
		out := t.TempDir()
		code, stdout, stderr := runGet(t, "-d", out, m.URL())
		if code != 0 || !strings.Contains(stdout, "plain.bin: done, not verified (no hash published)") ||
			strings.Contains(stdout, "done, verified") || !strings.Contains(stdout, "from 1 mirror\n") {
			t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
		}
	})
	t.Run("--require-hash: exit 1", func(t *testing.T) {
		out := t.TempDir()
		code, _, stderr := runGet(t, "--require-hash", "-d", out, m.URL())
		if code != 1 || !strings.Contains(stderr, "not verified") {
			t.Fatalf("exit %d, stderr %q; want 1 and not verified", code, stderr)
		}
	})
	t.Run("--json says the outcome", func(t *testing.T) {
		src, out := t.TempDir(), t.TempDir()
		meta := writeMeta4(t, src, "f.bin", data, 64<<10, "", m.URL())
		code, stdout, stderr := runGet(t, "--json", "-d", out, meta)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		r := lastJSON(t, stdout)
		if r["outcome"] != "verified" || r["verified_by"] != "sha-256 pieces" || r["saved_as"] != "f.bin" {
			t.Fatalf("result %v, want verified by sha-256 pieces", r)
		}
		code, stdout, _ = runGet(t, "--json", "-d", t.TempDir(), m.URL())
		if r := lastJSON(t, stdout); code != 0 || r["outcome"] != "not verified" || r["verified_by"] != nil {
			t.Fatalf("exit %d, result %v, want not verified", code, r)
		}
	})
}

// Two URLs that name files alike both land, under two names. They download
// side by side, so either may take the plain name.
func TestGetTwoSourcesOneName(t *testing.T) {
	t.Parallel()
	a, b := getData(200<<10), getData(200<<10 + 5)[:200<<10]
	ma := mirrortest.New(t, a, mirrortest.Addr("127.0.0.2"), mirrortest.Path("/x/f.bin"))
	mb := mirrortest.New(t, b, mirrortest.Addr("127.0.0.3"), mirrortest.Path("/y/f.bin"))
	out := t.TempDir()
	code, stdout, stderr := runGet(t, "-d", out, ma.URL(), mb.URL())
	if code != 0 || !strings.Contains(stdout, "saved as f (1).bin") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	first, err1 := os.ReadFile(filepath.Join(out, "f.bin"))
	second, err2 := os.ReadFile(filepath.Join(out, "f (1).bin"))
	if err1 != nil || err2 != nil {
		t.Fatalf("f.bin: %v; f (1).bin: %v", err1, err2)
	}
	if !(bytes.Equal(first, a) && bytes.Equal(second, b)) && !(bytes.Equal(first, b) && bytes.Equal(second, a)) {
		t.Fatal("the two files do not hold the two sources' bytes, one each")
	}
}

// An interrupted get says how to resume, not only "context canceled".
func TestGetInterruptedSaysResume(t *testing.T) {
	t.Parallel()
	data := getData(4 << 20)
	m := mirrortest.New(t, data, mirrortest.Rate(256<<10))
	src, out := t.TempDir(), t.TempDir()
	meta := writeMeta4(t, src, "slow.bin", data, 256<<10, "", m.URL())
	ctx, cancel := context.WithCancel(context.Background())
	var stdout, stderr bytes.Buffer
	done := make(chan int)
	w := &notifyWriter{ch: make(chan struct{}, 1)}
	go func() {
		done <- cmdGet(ctx, []string{"--state", t.TempDir(), "--json", "-d", out, meta}, w, &stderr)
	}()
	<-w.ch // the first progress line: the download runs
	cancel()
	code := <-done
	w.mu.Lock()
	stdout.Write(w.buf.Bytes())
	w.mu.Unlock()
	r := lastJSON(t, stdout.String())
	if code != 1 || r["outcome"] != "failed" {
		t.Fatalf("exit %d, result %v", code, r)
	}
	var text bytes.Buffer
	p := newPrinter(&getOptions{stdout: &text, stderr: &text})
	p.Result(runner.Result{Source: "src", File: "slow.bin", Snapshot: &engine.Snapshot{Name: "slow.bin", Size: 4 << 20, Bytes: 1 << 20}, Err: context.Canceled})
	if !strings.Contains(text.String(), "interrupted") || !strings.Contains(text.String(), "again") {
		t.Fatalf("message %q does not say how to resume", text.String())
	}
}

func lastJSON(t *testing.T, out string) map[string]any {
	t.Helper()
	var last map[string]any
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		last = nil
		if err := json.Unmarshal(sc.Bytes(), &last); err != nil {
			t.Fatalf("not a JSON line: %q", sc.Text())
		}
	}
	return last
}

// notifyWriter collects output and signals its first write.
type notifyWriter struct {
	mu  sync.Mutex
	buf bytes.Buffer
	ch  chan struct{}
}

func (w *notifyWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	select {
	case w.ch <- struct{}{}:
	default:
	}
	return w.buf.Write(p)
}

// TestSpeedAfterResume: the speed is over the bytes this run fetched, not
// over the whole file a resume finished.
func TestSpeedAfterResume(t *testing.T) {
	t.Parallel()
	s := &engine.Snapshot{Name: "f.bin", State: engine.StateDone, Created: true, Elapsed: 2 * time.Second, Bytes: 10 << 20,
		Mirrors: []engine.MirrorSnapshot{{Bytes: 2 << 20, Useful: 2 << 20}}}
	got := transferText(s, fetchedBytes(s))
	for _, want := range []string{"2.0 MiB fetched in 2.0s", "1.0 MiB/s", "8.0 MiB were on disk from before"} {
		if !strings.Contains(got, want) {
			t.Errorf("%q lacks %q", got, want)
		}
	}
	s.Created = false
	if got := transferText(s, 0); !strings.Contains(got, "already there") {
		t.Errorf("a file found proven: %q", got)
	}
}

// TestGetAgainNoHash: a second get of a source without hashes finds the
// file the first one wrote (the queue says so) and does not fetch it again
// beside itself; still not verified.
func TestGetAgainNoHash(t *testing.T) {
	t.Parallel()
	data := getData(100<<10 + 3)
	m := mirrortest.New(t, data, mirrortest.Path("/pub/again.bin"))
	state, out := t.TempDir(), t.TempDir()
	for run := 1; run <= 2; run++ {
		var stdout, stderr bytes.Buffer
		code := cmdGet(context.Background(), []string{"--state", state, "-d", out, m.URL()}, &stdout, &stderr)
		if code != 0 || !strings.Contains(stdout.String(), "again.bin: done, not verified (no hash published)") {
			t.Fatalf("run %d: exit %d, stdout %q, stderr %q", run, code, stdout.String(), stderr.String())
		}
	}
	if _, err := os.Stat(filepath.Join(out, "again (1).bin")); !os.IsNotExist(err) {
		t.Errorf("the second get saved a copy beside the first's file: %v", err)
	}
	if served := m.BytesServed(); served > int64(len(data))+1 {
		t.Errorf("mirror served %d bytes over two runs, want the file once (%d)", served, len(data))
	}
}
