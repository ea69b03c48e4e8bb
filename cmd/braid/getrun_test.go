package main

import (
	"bytes"
	"crypto/sha256"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"braid/engine/mirrortest"
	"braid/queue"
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
	for _, flag := range []string{"--jobs", "--max-conn-per-host"} {
		if code, _, stderr := runGet(t, flag, "0", "x.meta4"); code != 2 || !strings.Contains(stderr, flag) {
			t.Errorf("%s 0: exit %d, %q; want 2 naming the flag", flag, code, stderr)
		}
	}
}

// The files of a source the queue has not seen start while its job is
// recorded: here the queue's database is locked by another connection
// while get runs, and every file's bytes arrive before the lock is
// released; then get records the job and ends with it done.
func TestGetNewSourceStartsBeforeRecorded(t *testing.T) {
	data := getData(64<<10 + 3)
	m := mirrortest.New(t, data, mirrortest.Addr("127.0.0.2"))
	src, out, state := t.TempDir(), t.TempDir(), t.TempDir()
	meta := filepath.Join(src, "new.meta4")
	const files = 4
	writeManyMeta4(t, meta, "n", files, data, m.URL())

	// This test's queue owns the state folder (so get runs none of the
	// owner's writes at open), and a second connection holds its write
	// lock.
	q, err := queue.Open(state)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	db, err := sql.Open("sqlite3", "file:"+filepath.Join(state, queue.DBName)+"?_txlock=immediate")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	lock, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	locked := true
	unlock := func() {
		if locked {
			locked = false
			if err := lock.Rollback(); err != nil {
				t.Error(err)
			}
		}
	}
	defer unlock()

	var stdout, stderr bytes.Buffer
	ended := make(chan int, 1)
	go func() {
		ended <- cmdGet(t.Context(), []string{"--state", state, "-d", out, meta}, &stdout, &stderr)
	}()
	want := int64(files * len(data))
	deadline := time.Now().Add(3 * time.Second) // within the queue's 5 s busy timeout
	for m.BytesServed() < want && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	served := m.BytesServed()
	unlock()
	if served < want {
		t.Errorf("the mirror served %d of %d bytes while the queue was locked: the files waited for their job", served, want)
	}
	if code := <-ended; code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	for i := range files {
		if got, err := os.ReadFile(filepath.Join(out, fmt.Sprintf("n%d.bin", i))); err != nil || !bytes.Equal(got, data) {
			t.Fatalf("n%d.bin: %v", i, err)
		}
	}
	jobs, err := q.List()
	if err != nil {
		t.Fatal(err)
	}
	if len(jobs) != 1 || jobs[0].State != queue.Done {
		t.Fatalf("queue after get: %+v, want one job, done", jobs)
	}
}
