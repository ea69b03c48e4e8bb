package main

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"braid/engine/mirrortest"
)

// writeManyMeta4 writes a .meta4 at path listing n files named
// prefix0.bin, prefix1.bin, ..., each data, each on every URL.
func writeManyMeta4(t *testing.T, path, prefix string, n int, data []byte, urls ...string) {
	t.Helper()
	var b strings.Builder
	b.WriteString("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<metalink xmlns=\"urn:ietf:params:xml:ns:metalink\">\n")
	for i := range n {
		fmt.Fprintf(&b, "<file name=\"%s%d.bin\">\n<size>%d</size>\n<hash type=\"sha-256\">%x</hash>\n", prefix, i, len(data), sha256.Sum256(data))
		for k, u := range urls {
			fmt.Fprintf(&b, "<url priority=\"%d\">%s</url>\n", k+1, u)
		}
		b.WriteString("</file>\n")
	}
	b.WriteString("</metalink>\n")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// get runs sources and their files side by side (--jobs), within the
// per-host cap across all of them (--max-conn-per-host), and a second
// get of the same sources finds them done.
func TestGetSideBySide(t *testing.T) {
	t.Parallel()
	data := getData(300<<10 + 5)
	a := mirrortest.New(t, data, mirrortest.Addr("127.0.0.2"), mirrortest.Rate(1<<20))
	b := mirrortest.New(t, data, mirrortest.Addr("127.0.0.3"), mirrortest.Rate(1<<20))
	src := t.TempDir()
	one, two := filepath.Join(src, "one.meta4"), filepath.Join(src, "two.meta4")
	writeManyMeta4(t, one, "x", 4, data, a.URL(), b.URL())
	writeManyMeta4(t, two, "y", 4, data, a.URL(), b.URL())
	out, state := t.TempDir(), t.TempDir()
	var stdout, stderr bytes.Buffer
	args := []string{"--state", state, "-d", out, "--jobs", "2", "--max-conn-per-host", "2", one, two}
	if code := cmdGet(t.Context(), args, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	for _, p := range []string{"x", "y"} {
		for i := range 4 {
			got, err := os.ReadFile(filepath.Join(out, fmt.Sprintf("%s%d.bin", p, i)))
			if err != nil || !bytes.Equal(got, data) {
				t.Fatalf("%s%d.bin: %v", p, i, err)
			}
		}
	}
	for _, m := range []*mirrortest.Mirror{a, b} {
		// A small file of a batch takes one connection: two at once on
		// a mirror are two files side by side, more break the cap.
		if p := m.InFlight().Peak(); p != 2 {
			t.Errorf("mirror %s: at most %d requests at once, want the per-host cap 2", m.Host(), p)
		}
	}
	served := a.BytesServed() + b.BytesServed()
	stdout.Reset()
	stderr.Reset()
	if code := cmdGet(t.Context(), args, &stdout, &stderr); code != 0 {
		t.Fatalf("second get: exit %d: %s", code, stderr.String())
	}
	if n := a.BytesServed() + b.BytesServed() - served; n != 0 {
		t.Errorf("second get fetched %d bytes again", n)
	}
}

// --jobs and --max-conn-per-host below 1 are usage errors.
func TestGetJobsUsage(t *testing.T) {
	t.Parallel()
	for _, flag := range []string{"--jobs", "--max-conn-per-host"} {
		if code, _, stderr := runGet(t, flag, "0", "x.meta4"); code != 2 || !strings.Contains(stderr, flag) {
			t.Errorf("%s 0: exit %d, %q; want 2 naming the flag", flag, code, stderr)
		}
	}
}

// A state folder that cannot be opened stops get with one clear message
// and exit 1, before any file starts.
func TestGetStateOpenFails(t *testing.T) {
	data := getData(256<<10 + 7)
	src := t.TempDir()

	t.Run("not a folder", func(t *testing.T) {
		m := mirrortest.New(t, data, mirrortest.Addr("127.0.0.2"))
		meta := filepath.Join(src, "a.meta4")
		writeManyMeta4(t, meta, "a", 2, data, m.URL())
		state := filepath.Join(t.TempDir(), "file")
		if err := os.WriteFile(state, []byte("not a folder"), 0o644); err != nil {
			t.Fatal(err)
		}
		var stdout, stderr bytes.Buffer
		code := cmdGet(t.Context(), []string{"--state", state, "-d", t.TempDir(), meta}, &stdout, &stderr)
		if code != 1 {
			t.Fatalf("exit %d, want 1: %s", code, stderr.String())
		}
		if n := strings.Count(stderr.String(), "state:"); n != 1 || !strings.HasPrefix(stderr.String(), "braid get: state: ") {
			t.Fatalf("stderr says state %d times, want once as braid get: state: ...:\n%s", n, stderr.String())
		}
		if got := m.BytesServed(); got != 0 {
			t.Fatalf("the mirror served %d bytes: a queue that may hold the job must be read before its files start", got)
		}
	})
}

// get adds its next source while the first ones run: a source whose
// server is slow to answer does not hold back the download of one given
// before it. The second link's server answers only once the first file
// has arrived (or after 20 s, which fails the test).
func TestGetAddsWhileItRuns(t *testing.T) {
	t.Parallel()
	data := getData(200<<10 + 1)
	first := mirrortest.New(t, data, mirrortest.Addr("127.0.0.2"), mirrortest.Path("/first.bin"))
	arrived := make(chan struct{})
	var late atomic.Bool
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-arrived:
		case <-time.After(20 * time.Second):
			late.Store(true)
		}
		http.ServeContent(w, r, "second.bin", time.Unix(0, 0), bytes.NewReader(data))
	}))
	t.Cleanup(slow.Close)
	go func() {
		for first.BytesServed() < int64(len(data)) {
			time.Sleep(10 * time.Millisecond)
		}
		close(arrived)
	}()
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	args := []string{"--state", t.TempDir(), "-d", out, first.URL(), slow.URL + "/second.bin"}
	if code := cmdGet(t.Context(), args, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if late.Load() {
		t.Error("the first source's file did not arrive while get read the second source")
	}
	for _, name := range []string{"first.bin", "second.bin"} {
		if got, err := os.ReadFile(filepath.Join(out, name)); err != nil || !bytes.Equal(got, data) {
			t.Errorf("%s: %v", name, err)
		}
	}
}
