package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"braid/engine/mirrortest"
	"braid/engine/netconf/netconftest"
	"braid/engine/resourcesync/rstest"
	"braid/internal/testkit"
)

// syncRun is one `braid sync` run's outcome, read from its --json lines.
type syncRun struct {
	code    int
	files   map[string][]string // kind -> files
	summary jsonSyncSummary
	stderr  string
}

// runSync runs `braid sync --json` in-process against state.
func runSync(t *testing.T, state string, args ...string) syncRun {
	t.Helper()
	var out, errb bytes.Buffer
	code := cmdSync(context.Background(), append([]string{"--state", state, "--json"}, args...), &out, &errb)
	return parseSyncOutput(t, code, out.Bytes(), errb.String())
}

func parseSyncOutput(t *testing.T, code int, out []byte, stderr string) syncRun {
	t.Helper()
	r := syncRun{code: code, files: map[string][]string{}, stderr: stderr}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		var line struct {
			Type     string `json:"type"`
			Kind     string `json:"kind"`
			File     string `json:"file"`
			Verified string `json:"verified"`
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatalf("not JSON: %q: %v", sc.Text(), err)
		}
		switch line.Type {
		case "file":
			r.files[line.Kind] = append(r.files[line.Kind], line.File)
			if line.Kind == "fetched" && line.Verified != "" {
				r.files["verified by "+line.Verified] = append(r.files["verified by "+line.Verified], line.File)
			}
		case "summary":
			if err := json.Unmarshal(sc.Bytes(), &r.summary); err != nil {
				t.Fatal(err)
			}
		}
	}
	return r
}

// checkFile fails unless dir holds name with exactly the content want.
func checkFile(t *testing.T, dir, name string, want []byte) {
	t.Helper()
	got, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s: %d bytes, not the source's %d", name, len(got), len(want))
	}
}

func TestSyncUsage(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{nil, {"ftp://x/"}, {"--jobs", "0", "http://x/"}, {"http://a/", "http://b/"}, {"--bogus", "http://x/"}} {
		var out, errb bytes.Buffer
		if code := cmdSync(context.Background(), args, &out, &errb); code != 2 || errb.Len() == 0 {
			t.Errorf("%q: exit %d (stderr %q), want 2 and a message", args, code, errb.String())
		}
	}
}

// TestSyncLifecycle follows one folder through a source's life: discovery
// from the base URL and a first full sync, a run with nothing changed, a
// Change List with an update, a creation and a deletion, --check, and
// --delete.
func TestSyncLifecycle(t *testing.T) {
	t.Parallel()
	src := rstest.New(t)
	files := map[string][]byte{
		"/a.bin":        getData(300 << 10),
		"/data/b.txt":   []byte("hello\n"),
		"/data/deep/c":  getData(70 << 10),
		"/data/gone.md": []byte("# soon deleted\n"),
	}
	for p, d := range files {
		src.Put(p, d)
	}
	state, dir := t.TempDir(), t.TempDir()

	r := runSync(t, state, src.URL(), "-d", dir)
	if r.code != 0 || len(r.files["fetched"]) != 4 || len(r.files["verified by sha-256"]) != 4 || r.summary.Mode[0] != "full" {
		t.Fatalf("first sync: exit %d, %v, mode %v; stderr %s", r.code, r.files, r.summary.Mode, r.stderr)
	}
	for p, d := range files {
		checkFile(t, dir, p[1:], d)
	}
	first := src.BytesServed()

	r = runSync(t, state, src.URL(), "-d", dir)
	if r.code != 0 || len(r.files["fetched"]) != 0 || r.summary.Mode[0] != "changes" {
		t.Fatalf("sync with nothing changed: exit %d, %v, mode %v", r.code, r.files, r.summary.Mode)
	}
	if n := src.BytesServed(); n != first {
		t.Fatalf("a sync with nothing changed fetched %d bytes", n-first)
	}

	updated := getData(301 << 10)
	created := []byte("new file\n")
	src.Put("/a.bin", updated)
	src.Put("/data/new.txt", created)
	src.Delete("/data/gone.md")
	// Deleted a moment later, as on a real source: the sync that keeps
	// both records its time as the later one's, and a later --delete must
	// still find the earlier.
	time.Sleep(5 * time.Millisecond)
	src.Delete("/data/deep/c")

	r = runSync(t, state, "--check", src.URL(), "-d", dir)
	if r.code != 1 || fmt.Sprint(r.files["changed"]) != "[a.bin]" || fmt.Sprint(r.files["missing"]) != "[data/new.txt]" || fmt.Sprint(r.files["extra"]) != "[data/deep/c data/gone.md]" {
		t.Fatalf("--check after changes: exit %d, %v", r.code, r.files)
	}
	if n := src.BytesServed(); n != first {
		t.Fatalf("--check fetched %d bytes", n-first)
	}

	r = runSync(t, state, src.URL(), "-d", dir)
	if r.code != 0 || r.summary.Mode[0] != "changes" || len(r.files["fetched"]) != 2 || len(r.files["gone"]) != 2 {
		t.Fatalf("sync after changes: exit %d, mode %v, %v; %s", r.code, r.summary.Mode, r.files, r.stderr)
	}
	checkFile(t, dir, "a.bin", updated)
	checkFile(t, dir, "data/new.txt", created)
	checkFile(t, dir, "data/gone.md", files["/data/gone.md"]) // listed, not removed
	if got, want := src.BytesServed()-first, int64(len(updated)+len(created)); got != want {
		t.Fatalf("the sync after changes fetched %d bytes, want the changed files' %d", got, want)
	}

	r = runSync(t, state, "--delete", src.URL(), "-d", dir)
	if r.code != 0 || len(r.files["deleted"]) != 2 {
		t.Fatalf("--delete: exit %d, %v", r.code, r.files)
	}
	if _, err := os.Stat(filepath.Join(dir, "data", "gone.md")); !os.IsNotExist(err) {
		t.Fatalf("--delete left the deleted resource: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "data", "deep")); !os.IsNotExist(err) {
		t.Fatalf("--delete left the folder it emptied: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "data", "b.txt")); err != nil {
		t.Fatalf("--delete took a folder that still holds files: %v", err)
	}
	r = runSync(t, state, "--check", src.URL(), "-d", dir)
	if r.code != 0 || len(r.files["missing"])+len(r.files["changed"])+len(r.files["extra"]) != 0 {
		t.Fatalf("--check after the sync: exit %d, %v", r.code, r.files)
	}
}

// TestSyncCompare: without a Change List, a later sync compares the
// Resource List (split under a Resource List Index) with the folder by
// length and hash, fetching only what differs, including a file damaged
// locally.
func TestSyncCompare(t *testing.T) {
	t.Parallel()
	src := rstest.New(t)
	src.PartSize = 2
	src.NoChangeList = true
	data := map[string][]byte{}
	for i := range 5 {
		p := fmt.Sprintf("/set/f%d", i)
		data[p] = getData(20<<10 + i)
		src.Put(p, data[p])
	}
	state, dir := t.TempDir(), t.TempDir()
	if r := runSync(t, state, src.URL()+"resourcelist.xml", "-d", dir); r.code != 0 || len(r.files["fetched"]) != 5 {
		t.Fatalf("first sync through an index: exit %d, %v; %s", r.code, r.files, r.stderr)
	}
	before := src.BytesServed()
	damaged := filepath.Join(dir, "set", "f3")
	b, _ := os.ReadFile(damaged)
	b[100] ^= 1
	if err := os.WriteFile(damaged, b, 0o644); err != nil {
		t.Fatal(err)
	}
	src.Put("/set/f1", getData(999))
	r := runSync(t, state, src.URL(), "-d", dir)
	if r.code != 0 || r.summary.Mode[0] != "compare" || fmt.Sprint(r.files["fetched"]) != "[set/f1 set/f3]" && fmt.Sprint(r.files["fetched"]) != "[set/f3 set/f1]" {
		t.Fatalf("compare: exit %d, mode %v, %v", r.code, r.summary.Mode, r.files)
	}
	if got, want := src.BytesServed()-before, int64(999+len(data["/set/f3"])); got != want {
		t.Fatalf("compare fetched %d bytes, want %d", got, want)
	}
	checkFile(t, dir, "set/f3", data["/set/f3"])
}

// TestSyncRefusals: a resource on another host, hostile paths and a wrong
// hash are refused or fail without writing a byte outside the folder or at
// the resource's name, and a resource whose <loc> is down comes from its
// rel="duplicate" mirror. The other resources still sync.
func TestSyncRefusals(t *testing.T) {
	t.Parallel()
	src := rstest.New(t)
	good := getData(50 << 10)
	src.Put("/ok.bin", good)
	src.Put("/bad.bin", getData(10<<10))
	src.Lie("/bad.bin", rstest.Hash(good[:10<<10]))
	mirrored := getData(64 << 10)
	mirror := mirrortest.New(t, mirrored, mirrortest.Addr("127.0.0.2"))
	foreign := mirrortest.New(t, []byte("foreign"), mirrortest.Addr("127.0.0.3"))
	base := strings.TrimSuffix(src.URL(), "/")
	src.Extra = []string{
		fmt.Sprintf(`<url><loc>%s</loc><rs:md length="7"/></url>`, foreign.URL()),
		fmt.Sprintf(`<url><loc>%s/../escape.txt</loc></url>`, base),
		fmt.Sprintf(`<url><loc>%s/%%2e%%2e/escape2.txt</loc></url>`, base),
		fmt.Sprintf(`<url><loc>%s/dir/</loc></url>`, base),
		fmt.Sprintf(`<url><loc>%s/mirrored.bin</loc><rs:md hash="%s" length="%d"/>
		  <rs:ln rel="duplicate" pri="1" href="%s"/></url>`, base, rstest.Hash(mirrored), len(mirrored), mirror.URL()),
	}
	state, parent := t.TempDir(), t.TempDir()
	dir := filepath.Join(parent, "sync")
	r := runSync(t, state, src.URL(), "-d", dir)
	if r.code != 1 {
		t.Fatalf("exit %d with a wrong hash, want 1", r.code)
	}
	if fmt.Sprint(r.files["failed"]) != "[bad.bin]" || len(r.files["skipped"]) != 4 {
		t.Fatalf("failed %v, skipped %v; want bad.bin and 4 skipped", r.files["failed"], r.files["skipped"])
	}
	checkFile(t, dir, "ok.bin", good)
	checkFile(t, dir, "mirrored.bin", mirrored)
	if mirror.BytesServed() != int64(len(mirrored)) {
		t.Fatalf("the duplicate mirror served %d bytes, want the file's %d", mirror.BytesServed(), len(mirrored))
	}
	if _, err := os.Stat(filepath.Join(dir, "bad.bin")); !os.IsNotExist(err) {
		t.Fatalf("a file that failed its hash is at its name: %v", err)
	}
	if foreign.BytesServed() != 0 {
		t.Fatal("the resource on another host was fetched")
	}
	for _, name := range []string{"escape.txt", "escape2.txt"} {
		if _, err := os.Stat(filepath.Join(parent, name)); !os.IsNotExist(err) {
			t.Fatalf("%s was written outside the folder", name)
		}
	}
}

// TestSyncKilled kills a real `braid sync` with SIGKILL in the middle of a
// sync; the next run finishes it without fetching again the files that
// were done.
func TestSyncKilled(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and kills the braid binary; skipped with -short")
	}
	bin := buildBraid(t)
	src := rstest.New(t)
	data := map[string][]byte{}
	for i := range 6 {
		p := fmt.Sprintf("/k/f%d.bin", i)
		data[p] = getData(128<<10 + i)
		src.Put(p, data[p])
	}
	state, dir := t.TempDir(), t.TempDir()
	cmd := exec.Command(bin, "sync", "--state", state, "--jobs", "1", "--limit", "256K", src.URL(), "-d", dir)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Wait, on a ticker, for two files at their final names, then crash it.
	done := func() int {
		n := 0
		for p := range data {
			if _, err := os.Stat(filepath.Join(dir, p[1:])); err == nil {
				n++
			}
		}
		return n
	}
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(2 * time.Minute)
	for done() < 2 {
		select {
		case <-tick.C:
		case <-deadline:
			cmd.Process.Kill()
			t.Fatal("the child synced fewer than two files in two minutes")
		}
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	had := done()
	if had == len(data) {
		t.Fatal("the child finished before it was killed; nothing was interrupted")
	}
	// The server counts what it writes; it goes on writing the killed
	// child's answer until it notices the closed socket. Count the second
	// run's bytes from when that has settled.
	before := settled(t, src.BytesServed)
	r := runSync(t, state, src.URL(), "-d", dir)
	if r.code != 0 || len(r.files["kept"]) < had {
		t.Fatalf("the sync after the crash: exit %d, %v; %s", r.code, r.files, r.stderr)
	}
	for p, d := range data {
		checkFile(t, dir, p[1:], d)
	}
	var rest int64
	for p, d := range data {
		if !contains(r.files["kept"], p[1:]) {
			rest += int64(len(d))
		}
	}
	if got := src.BytesServed() - before; got > rest {
		t.Fatalf("the second run fetched %d bytes, more than the %d of the files not done", got, rest)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestSyncBareChanges: Change List entries without hash or length (as in
// the specification's examples) take them from a Resource List at least
// as new, so the changed files are still verified.
func TestSyncBareChanges(t *testing.T) {
	t.Parallel()
	src := rstest.New(t)
	src.BareChanges = true
	src.Put("/a", getData(1000))
	src.Put("/b", getData(2000))
	state, dir := t.TempDir(), t.TempDir()
	if r := runSync(t, state, src.URL(), "-d", dir); r.code != 0 || len(r.files["verified by sha-256"]) != 2 {
		t.Fatalf("first sync: exit %d, %v", r.code, r.files)
	}
	updated := getData(1000 + 1)
	src.Put("/a", updated)
	r := runSync(t, state, src.URL(), "-d", dir)
	if r.code != 0 || r.summary.Mode[0] != "changes" || fmt.Sprint(r.files["verified by sha-256"]) != "[a]" {
		t.Fatalf("sync of a bare change: exit %d, mode %v, %v", r.code, r.summary.Mode, r.files)
	}
	checkFile(t, dir, "a", updated)
}

// TestSyncGap: when the Change List begins after the last sync, the sync
// compares the Resource List with the folder instead, and fetches only
// what changed.
func TestSyncGap(t *testing.T) {
	t.Parallel()
	src := rstest.New(t)
	src.Put("/a", getData(5000))
	src.Put("/b", getData(6000))
	state, dir := t.TempDir(), t.TempDir()
	if r := runSync(t, state, src.URL(), "-d", dir); r.code != 0 {
		t.Fatalf("first sync: exit %d: %s", r.code, r.stderr)
	}
	src.Rotate()
	changed := getData(5001)
	src.Put("/a", changed)
	before := src.BytesServed()
	r := runSync(t, state, src.URL(), "-d", dir)
	if r.code != 0 || r.summary.Mode[0] != "compare" || fmt.Sprint(r.files["fetched"]) != "[a]" || fmt.Sprint(r.files["kept"]) != "[b]" {
		t.Fatalf("sync across a gap: exit %d, mode %v, %v", r.code, r.summary.Mode, r.files)
	}
	if got := src.BytesServed() - before; got != int64(len(changed)) {
		t.Fatalf("fetched %d bytes, want %d", got, len(changed))
	}
	checkFile(t, dir, "a", changed)
}

// settled returns n() once it has stayed the same for half a second,
// polled on a ticker, for a count that goes on moving for a moment after
// a client is killed (a server writing into a socket it has not yet seen
// close).
func settled(t *testing.T, n func() int64) int64 {
	t.Helper()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(30 * time.Second)
	last, same := n(), 0
	for same < 10 {
		select {
		case <-tick.C:
		case <-deadline:
			t.Fatalf("the count did not settle in 30 s (now %d)", n())
		}
		if v := n(); v == last {
			same++
		} else {
			last, same = v, 0
		}
	}
	return last
}

// TestSyncNetworkFlags: braid sync takes get's network flags. Through
// --all-proxy (tinyproxy, the only way to the source) and with
// --http-user and the password from $BRAID_HTTP_PASSWD, a source that
// asks for a login syncs, then --check compares through them; the
// password is in neither the output nor the state folder.
func TestSyncNetworkFlags(t *testing.T) {
	const pw = "sync-flags-pw-8"
	t.Setenv("BRAID_HTTP_PASSWD", pw) // not parallel: the environment
	proxy := netconftest.Tinyproxy(t, "", "")
	src := rstest.New(t)
	src.OnlyVia, src.User, src.Password = "tinyproxy", "ann", pw
	data := mirrortest.Bytes(100<<10, 61)
	src.Put("/d/a.bin", data)
	state, dir := t.TempDir(), t.TempDir()

	r := runSync(t, state, "--all-proxy", proxy, "--http-user", "ann", "-d", dir, src.URL())
	if r.code != 0 || len(r.files["fetched"]) != 1 {
		t.Fatalf("sync through the proxy with a login: exit %d, %v\n%s", r.code, r.files, r.stderr)
	}
	checkFile(t, dir, "d/a.bin", data)
	r = runSync(t, state, "--all-proxy", proxy, "--http-user", "ann", "--check", "-d", dir, src.URL())
	if r.code != 0 || len(r.files["missing"])+len(r.files["changed"]) != 0 {
		t.Fatalf("check through the proxy with a login: exit %d, %v\n%s", r.code, r.files, r.stderr)
	}
	if strings.Contains(r.stderr, pw) {
		t.Errorf("the output shows the password: %s", r.stderr)
	}
	testkit.NoSecretIn(t, state, pw)

	// Without the proxy the source refuses the documents.
	r = runSync(t, t.TempDir(), "--http-user", "ann", "-d", t.TempDir(), src.URL())
	if r.code != 1 || !strings.Contains(r.stderr, "403") {
		t.Errorf("a sync around the proxy: exit %d, %s", r.code, r.stderr)
	}
}
