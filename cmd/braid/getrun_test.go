package main

import (
	"bytes"
	"crypto/sha256"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"braid/engine/metalink"
	"braid/engine/mirrortest"
	"braid/engine/piece"
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

// The files of a source the queue has not seen start while its job is
// recorded: here the queue's database is locked by another connection
// while get runs, and every file's bytes arrive before the lock is
// released; then get records the job and ends with it done.
func TestGetNewSourceStartsBeforeRecorded(t *testing.T) {
	t.Parallel()
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
	served := waitServed(m, want, 3*time.Second) // within the queue's 5 s busy timeout
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

// waitServed waits until m has served want bytes, or for at most within,
// and returns how many it has served.
func waitServed(m *mirrortest.Mirror, want int64, within time.Duration) int64 {
	for deadline := time.Now().Add(within); m.BytesServed() < want && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
	return m.BytesServed()
}

// slowQueueOpen makes the open of get's queue in the state folder wait
// for release, then end with fail (nil: the real open), until fixed is
// called or the test ends.
func slowQueueOpen(t *testing.T, state string, fail error) (release, fixed func()) {
	t.Helper()
	ch := make(chan struct{})
	key := filepath.Clean(state)
	queueOpenHooks.Store(key, func(dir string) (*queue.Queue, error) {
		<-ch
		if fail != nil {
			return nil, fail
		}
		return queue.Open(dir)
	})
	var once sync.Once
	release = func() { once.Do(func() { close(ch) }) }
	fixed = func() {
		release()
		queueOpenHooks.Delete(key)
	}
	t.Cleanup(fixed)
	return release, fixed
}

// In a state folder that holds no queue yet, nothing can be resumed, so
// get's files do not wait for the queue to be created: here every byte
// arrives while the open is held back; then get records the job and ends
// with it done.
func TestGetFreshStateStartsBeforeOpen(t *testing.T) {
	t.Parallel()
	data := getData(64<<10 + 5)
	m := mirrortest.New(t, data, mirrortest.Addr("127.0.0.2"))
	src, out := t.TempDir(), t.TempDir()
	state := filepath.Join(t.TempDir(), "new-state")
	meta := filepath.Join(src, "fresh.meta4")
	const files = 3
	writeManyMeta4(t, meta, "f", files, data, m.URL())
	release, _ := slowQueueOpen(t, state, nil)

	var stdout, stderr bytes.Buffer
	ended := make(chan int, 1)
	go func() {
		ended <- cmdGet(t.Context(), []string{"--state", state, "-d", out, meta}, &stdout, &stderr)
	}()
	want := int64(files * len(data))
	served := waitServed(m, want, 3*time.Second)
	release()
	if served < want {
		t.Errorf("the mirror served %d of %d bytes while the new queue was being opened: the files waited for it", served, want)
	}
	if code := <-ended; code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	q, err := queue.Open(state)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	jobs, err := q.List()
	if err != nil {
		t.Fatal(err)
	}
	if len(jobs) != 1 || jobs[0].State != queue.Done {
		t.Fatalf("queue after get: %+v, want one job, done", jobs)
	}
	j, err := q.Get(jobs[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	verified := 0
	for _, f := range j.Files {
		if f.Verified {
			verified++
		}
	}
	if verified != files {
		t.Fatalf("the job records %d files verified, want %d", verified, files)
	}
}

// A state folder that cannot be opened stops get with one clear message
// and exit 1. When the folder is new, the files have started meanwhile:
// what they fetched stays on disk, and the next get with a usable state
// resumes from it.
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

	t.Run("new folder", func(t *testing.T) {
		m := mirrortest.New(t, data, mirrortest.Addr("127.0.0.2"), mirrortest.Rate(512<<10))
		meta := filepath.Join(src, "b.meta4")
		var doc metalink.Document
		doc.Version = 4
		for i := range 2 { // with piece hashes: a stopped file keeps its verified pieces
			f, err := piece.Describe(t.Context(), bytes.NewReader(data), int64(len(data)), fmt.Sprintf("b%d.bin", i), 16<<10, 0)
			if err != nil {
				t.Fatal(err)
			}
			f.URLs = []metalink.URL{{URL: m.URL(), Priority: 1}}
			doc.Files = append(doc.Files, f)
		}
		var buf bytes.Buffer
		if err := metalink.Write(&buf, &doc); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(meta, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		out := t.TempDir()
		state := filepath.Join(t.TempDir(), "state")
		release, fixed := slowQueueOpen(t, state, errors.New("disk on fire"))
		var stdout, stderr bytes.Buffer
		ended := make(chan int, 1)
		go func() {
			ended <- cmdGet(t.Context(), []string{"--state", state, "-d", out, meta}, &stdout, &stderr)
		}()
		waitServed(m, 64<<10, 5*time.Second)
		release()
		if code := <-ended; code != 1 {
			t.Fatalf("exit %d, want 1: %s", code, stderr.String())
		}
		if n := strings.Count(stderr.String(), "disk on fire"); n != 1 || !strings.HasPrefix(stderr.String(), "braid get: state: ") {
			t.Fatalf("stderr tells the state's error %d times, want once, first:\n%s", n, stderr.String())
		}
		first := m.BytesServed()
		if first == 0 || first >= int64(2*len(data)) {
			t.Fatalf("the mirror served %d bytes before the state failed; the test needs some, not all", first)
		}

		fixed() // the disk is fixed
		stdout.Reset()
		stderr.Reset()
		if code := cmdGet(t.Context(), []string{"--state", state, "-d", out, meta}, &stdout, &stderr); code != 0 {
			t.Fatalf("second get: exit %d: %s", code, stderr.String())
		}
		for i := range 2 {
			if got, err := os.ReadFile(filepath.Join(out, fmt.Sprintf("b%d.bin", i))); err != nil || !bytes.Equal(got, data) {
				t.Fatalf("b%d.bin after the second get: %v", i, err)
			}
		}
		if again := m.BytesServed() - first; again >= int64(2*len(data)) {
			t.Fatalf("the second get fetched %d bytes of %d: nothing the first fetched was kept", again, 2*len(data))
		}
	})
}
