// Package testkit holds the helpers Braid's tests share: content to
// serve, waiting on a condition, a free port, a short folder, a folder
// that must not hold a secret. Only tests
// import it. It imports nothing of Braid's but engine/mirrortest, so that
// any package's tests can use it without an import cycle (mirrortest's own
// tests excepted).
package testkit

import (
	"bytes"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"braid/engine/mirrortest"
)

// Data returns n bytes of test content: random-looking, so a misplaced
// range or a wrong piece shows, and the same for the same n on every run.
func Data(n int) []byte { return mirrortest.Bytes(n, uint64(n)<<8|7) }

// Patience is how long WaitFor waits: far longer than anything a test
// waits for takes, even under -race on a loaded machine or under Wine, so
// that running out of it means the thing never comes. (A torrent's first
// seed once took more than 30 s under make test's load, nothing wrong.)
const Patience = time.Minute

// poll is how often the waits ask.
const poll = 10 * time.Millisecond

// WaitFor waits until cond holds, asking every few milliseconds, and
// fails t saying it timed out waiting for what if Patience passes first.
// It waits on what the code under test set in motion; it does not time it.
func WaitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	WaitWithin(t, Patience, what, cond)
}

// WaitWithin is WaitFor with limit in place of Patience.
func WaitWithin(t testing.TB, limit time.Duration, what string, cond func() bool) {
	t.Helper()
	if !Eventually(limit, cond) {
		t.Fatalf("timed out after %s waiting for %s", limit, what)
	}
}

// Eventually reports whether cond holds within limit, asking every few
// milliseconds: for a test that says more than WaitFor when it does not.
func Eventually(limit time.Duration, cond func() bool) bool {
	return EventuallyEvery(limit, poll, cond)
}

// EventuallyEvery is Eventually asking every interval: for a cond that
// is costly to ask, such as one that starts a program.
func EventuallyEvery(limit, interval time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) {
			return cond()
		}
		time.Sleep(interval)
	}
	return true
}

// FreePort returns a loopback TCP port that nothing listened on a moment
// ago, for a server that a test starts as a separate program and must
// name its port (one started in the test listens on port 0 instead).
func FreePort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("find a free port: %v", err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// ShortDir is a folder of the test's own with a short path, removed when
// the test ends: a Unix socket's path must fit in about 100 bytes, and
// t.TempDir's can be longer. prefix names it, for whoever finds one left.
func ShortDir(t testing.TB, prefix string) string {
	t.Helper()
	dir, err := os.MkdirTemp("", prefix)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// NoSecretIn fails t for each file under dir (a state folder: the
// database, its journal, the log) that holds one of secrets in clear.
func NoSecretIn(t testing.TB, dir string, secrets ...string) {
	t.Helper()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		raw, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, s := range secrets {
			if bytes.Contains(raw, []byte(s)) {
				t.Errorf("%s holds %q in clear", p, s)
			}
		}
		return nil
	})
	if err != nil {
		t.Errorf("reading %s for secrets: %v", dir, err)
	}
}
