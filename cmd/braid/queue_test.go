package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"braid/engine/metalink"
	"braid/engine/mirrortest"
	"braid/engine/netconf"
	"braid/engine/netconf/netconftest"
	"braid/engine/piece"
	"braid/platform"
	"braid/queue"
	"braid/runner"
)

// queueFixture is a state folder with two jobs: 1 queued with 3 of 8
// pieces done, 2 paused by Braid with a reason, its files on disk.
func queueFixture(t *testing.T) (state, dest string) {
	t.Helper()
	state, dest = t.TempDir(), t.TempDir()
	q, err := queue.Open(state)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	doc := func(name string) *metalink.Document {
		return &metalink.Document{Files: []metalink.File{{Name: name, Size: 8 << 20,
			URLs: []metalink.URL{{URL: "http://m.example/" + name, Priority: 1}}}}}
	}
	a, err := q.Add(queue.NewJob{Source: "http://example.com/a.meta4", Dest: dest, Doc: doc("a.iso")})
	if err != nil {
		t.Fatal(err)
	}
	if err := q.Journal(a).PiecesDone("a.iso", []int{0, 1, 2}); err != nil {
		t.Fatal(err)
	}
	b, err := q.Add(queue.NewJob{Source: "/srv/b.meta4", Dest: dest, Doc: doc("b.iso")})
	if err != nil {
		t.Fatal(err)
	}
	if err := q.Pause(b, "the destination folder is read-only"); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"b.iso.part", "b.iso"} {
		if err := os.WriteFile(filepath.Join(dest, n), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return state, dest
}

// TestQueueListSaysWhyInWords: a failed job's line says the kind of its
// error in words, on Windows as on Linux (whose texts differ), and keeps
// the table narrow; --json keeps the whole error.
func TestQueueListSaysWhyInWords(t *testing.T) {
	state, dest := t.TempDir(), t.TempDir()
	q, err := queue.Open(state)
	if err != nil {
		t.Fatal(err)
	}
	causes := []string{
		`http://127.0.0.1:9/x.iso: HEAD: dial tcp 127.0.0.1:9: connect: connection refused (gave up after waiting 10m0s for the network, --retry-for)`,
		`http://127.0.0.1:9/y.iso: HEAD: dial tcp 127.0.0.1:9: connectex: Connection refused. (gave up after waiting 10m0s for the network, --retry-for)`,
		`z.iso: the publisher's key is not trusted`,
	}
	for i, c := range causes {
		name := string(rune('x'+i)) + ".iso"
		id, err := q.Add(queue.NewJob{Source: "http://127.0.0.1:9/" + name, Dest: dest, Doc: &metalink.Document{Files: []metalink.File{{Name: name, Size: 10,
			URLs: []metalink.URL{{URL: "http://127.0.0.1:9/" + name, Priority: 1}}}}}})
		if err != nil {
			t.Fatal(err)
		}
		if err := q.Fail(id, errors.New(c)); err != nil {
			t.Fatal(err)
		}
	}
	q.Close()
	lines := listLines(t, state, 4)
	for i, want := range []string{"failed (the server refused the connection)", "failed (the server refused the connection)", "failed (z.iso: the publisher's key is not trusted)"} {
		if !strings.Contains(lines[i+1], want) || strings.Contains(lines[i+1], "dial tcp") {
			t.Errorf("line %d %q, want %q", i+1, lines[i+1], want)
		}
	}
	code, out, errOut := runQueue(t, "--state", state, "list", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var js []struct{ Error string }
	if err := json.Unmarshal([]byte(out), &js); err != nil || len(js) != 3 {
		t.Fatalf("%v: %s", err, out)
	}
	for i, c := range causes {
		if js[i].Error != c {
			t.Errorf("--json job %d: error %q, want %q", i+1, js[i].Error, c)
		}
	}
}

func runQueue(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = cmdQueue(context.Background(), args, &out, &errOut)
	return code, out.String(), errOut.String()
}

// listLines is queue list's output for the queue in state, which must be
// n lines (the header and a line a job).
func listLines(t *testing.T, state string, n int) []string {
	t.Helper()
	code, out, errOut := runQueue(t, "--state", state, "list")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != n {
		t.Fatalf("list printed %d lines, want %d:\n%s", len(lines), n, out)
	}
	return lines
}

func TestQueueList(t *testing.T) {
	state, _ := queueFixture(t)
	lines := listLines(t, state, 3)
	for i, want := range [][]string{
		{"ID", "STATE", "PIECES", "BYTES", "NAME", "SOURCE"},
		{"1 ", "queued", "3/8", "3.0 MiB/8.0 MiB", "a.iso", "http://example.com/a.meta4"},
	} {
		for _, w := range want {
			if !strings.Contains(lines[i], w) {
				t.Errorf("line %d %q lacks %q", i, lines[i], w)
			}
		}
	}
	if !strings.HasPrefix(lines[2], "2 ") {
		t.Errorf("line 2 %q is not job 2", lines[2])
	}
	for _, w := range []string{"paused (the destination folder is read-only)", "0/8", "b.iso", "/srv/b.meta4"} {
		if !strings.Contains(lines[2], w) {
			t.Errorf("line 2 %q lacks %q", lines[2], w)
		}
	}

	// --json, with the flag after the subcommand and the state from the
	// environment.
	t.Setenv("BRAID_STATE", state)
	code, out, errOut := runQueue(t, "list", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var jobs []queueJob
	if err := json.Unmarshal([]byte(out), &jobs); err != nil {
		t.Fatalf("list --json: %v\n%s", err, out)
	}
	if len(jobs) != 2 || jobs[0].ID != 1 || jobs[0].PiecesDone != 3 || jobs[0].Pieces != 8 ||
		jobs[0].BytesDone != 3<<20 || jobs[0].Bytes != 8<<20 || jobs[0].Name != "a.iso" ||
		jobs[1].State != "paused" || jobs[1].Error == "" || jobs[1].Files[0] != "b.iso" {
		t.Errorf("list --json = %+v", jobs)
	}
}

func TestQueueChanges(t *testing.T) {
	t.Parallel()
	state, dest := queueFixture(t)
	stateOf := func(id int64) string {
		t.Helper()
		q, err := queue.Open(state)
		if err != nil {
			t.Fatal(err)
		}
		defer q.Close()
		j, err := q.Get(id)
		if err != nil {
			return "gone"
		}
		return string(j.State)
	}
	for _, tc := range []struct {
		args []string
		code int
		id   int64
		want string
	}{
		{[]string{"pause", "1"}, 0, 1, "paused"},
		{[]string{"resume", "1"}, 0, 1, "queued"},
		{[]string{"resume", "2"}, 0, 2, "queued"},
		{[]string{"pause", "99"}, 1, 1, "queued"},
		{[]string{"remove", "1"}, 0, 1, "gone"},
		{[]string{"remove", "--files", "2"}, 0, 2, "gone"},
		{[]string{"remove", "2"}, 1, 2, "gone"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			code, _, errOut := runQueue(t, append([]string{"--state", state}, tc.args...)...)
			if code != tc.code {
				t.Errorf("exit %d, want %d: %s", code, tc.code, errOut)
			}
			if code != 0 && !strings.Contains(errOut, "no such job") {
				t.Errorf("stderr %q does not say there is no such job", errOut)
			}
			if got := stateOf(tc.id); got != tc.want {
				t.Errorf("job %d is %s, want %s", tc.id, got, tc.want)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(dest, "b.iso.part")); !os.IsNotExist(err) {
		t.Errorf("remove --files left b.iso.part: %v", err)
	}
	// The job never wrote b.iso (it was there before): it stays.
	if _, err := os.Stat(filepath.Join(dest, "b.iso")); err != nil {
		t.Errorf("remove --files deleted b.iso, which the job did not create: %v", err)
	}
}

// TestQueueMove moves jobs with braid queue move and reads the order back
// from the database in a fresh process's way: a new queue.Open.
func TestQueueMove(t *testing.T) {
	t.Parallel()
	state := t.TempDir()
	q, err := queue.Open(state)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"a", "b", "c", "d"} {
		doc := &metalink.Document{Files: []metalink.File{{Name: n, Size: 1, URLs: []metalink.URL{{URL: "http://m.example/" + n}}}}}
		if _, err := q.Add(queue.NewJob{Source: "http://example.com/" + n, Dest: t.TempDir(), Doc: doc}); err != nil {
			t.Fatal(err)
		}
	}
	q.Close()
	order := func() string {
		t.Helper()
		q, err := queue.Open(state)
		if err != nil {
			t.Fatal(err)
		}
		defer q.Close()
		jobs, err := q.List()
		if err != nil {
			t.Fatal(err)
		}
		var s []string
		for _, j := range jobs {
			s = append(s, j.Name())
		}
		return strings.Join(s, "")
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"4", "top"}, "dabc"},
		{[]string{"4", "down"}, "adbc"},
		{[]string{"1", "bottom"}, "dbca"},
		{[]string{"1", "up"}, "dbac"},
	} {
		code, _, errOut := runQueue(t, append([]string{"--state", state, "move"}, tc.args...)...)
		if code != 0 {
			t.Fatalf("move %v: exit %d: %s", tc.args, code, errOut)
		}
		if got := order(); got != tc.want {
			t.Errorf("after move %v the order is %s, want %s", tc.args, got, tc.want)
		}
	}
	if code, _, errOut := runQueue(t, "--state", state, "move", "9", "up"); code != 1 || !strings.Contains(errOut, "no such job") {
		t.Errorf("move of a missing job: exit %d, %q", code, errOut)
	}
}

func TestQueueUsage(t *testing.T) {
	t.Parallel()
	state := t.TempDir()
	for _, args := range [][]string{
		{},
		{"frobnicate"},
		{"pause"},
		{"pause", "x"},
		{"pause", "0"},
		{"resume", "1", "2"},
		{"list", "extra"},
		{"list", "--nope"},
		{"run", "--limit", "fast"},
		{"move", "1"},
		{"move", "1", "sideways"},
		{"move", "x", "up"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			code, _, errOut := runQueue(t, append([]string{"--state", state}, args...)...)
			if code != 2 || errOut == "" {
				t.Errorf("exit %d with stderr %q, want 2 and a message", code, errOut)
			}
		})
	}
	if code, _, _ := runQueue(t, "-h"); code != 0 {
		t.Errorf("-h exits %d", code)
	}
}

func TestQueueRun(t *testing.T) {
	t.Parallel()
	data := bytes.Repeat([]byte("braid queue run "), 1<<16) // 1 MiB
	m := mirrortest.New(t, data)
	state, dest := queueOneFile(t, "run.bin", data, m.URL())

	code, out, errOut := runQueue(t, "--state", state, "run", "--max-conn", "4", "--limit", "64M")
	if code != 0 {
		t.Fatalf("exit %d: %s %s", code, out, errOut)
	}
	if got, err := os.ReadFile(filepath.Join(dest, "run.bin")); err != nil || !bytes.Equal(got, data) {
		t.Errorf("queue run produced %d bytes, %v", len(got), err)
	}
	code, out, _ = runQueue(t, "--state", state, "list")
	if code != 0 || !strings.Contains(out, "done") || !strings.Contains(out, "4/4") {
		t.Errorf("list after run (exit %d):\n%s", code, out)
	}
	// Nothing left: run returns at once.
	if code, _, errOut := runQueue(t, "--state", state, "run"); code != 0 {
		t.Errorf("run of an empty queue: exit %d: %s", code, errOut)
	}
}

// queueOneFile queues, in a state folder of its own, a job of one file,
// name, its data described in 256 KiB pieces (piece.Describe), from the one mirror
// link; it returns the state folder and the job's destination.
func queueOneFile(t *testing.T, name string, data []byte, link string) (state, dest string) {
	t.Helper()
	f, err := piece.Describe(context.Background(), bytes.NewReader(data), int64(len(data)), name, 256<<10, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.URLs = []metalink.URL{{URL: link, Priority: 1}}
	state, dest = t.TempDir(), t.TempDir()
	q, err := queue.Open(state)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	if _, err := q.Add(queue.NewJob{Source: strings.TrimSuffix(name, ".bin") + ".meta4", Dest: dest, Doc: &metalink.Document{Files: []metalink.File{f}}}); err != nil {
		t.Fatal(err)
	}
	return state, dest
}

func TestQueueRunClientFollowsSettings(t *testing.T) {
	t.Parallel()
	q, err := queue.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	if err := q.UpdateSettings(func(s *queue.Settings) {
		s.MaxConns, s.MaxConnsPerMirror, s.SpeedLimit = 8, 3, 1<<20
	}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name      string
		maxConn   int
		rate      int64
		wantConns int
		wantLimit int64
	}{
		{"settings alone", 0, 0, 8, 1 << 20},
		{"flags over settings", 4, 500 << 10, 4, 500 << 10},
	} {
		t.Run(c.name, func(t *testing.T) {
			svc, _ := queueService(context.Background(), &runner.Runner{Queue: q}, runFlags{maxConn: c.maxConn, rate: c.rate}, io.Discard)
			got := svc.Client()
			if got.MaxConns != c.wantConns || got.Limit != c.wantLimit || got.MaxConnsPerMirror != 3 {
				t.Fatalf("client = {MaxConns %d, MaxConnsPerMirror %d, Limit %d}, want {%d, 3, %d}",
					got.MaxConns, got.MaxConnsPerMirror, got.Limit, c.wantConns, c.wantLimit)
			}
		})
	}
}

// TestQueueChangesWakeTheRunningBraid: a change made with braid queue while
// the window (or a queue run) runs the queue reaches it at once: the
// command tells it over the user's socket, so a job resumed here starts
// there instead of showing paused until something else refreshes the list.
// Listing changes nothing and says nothing. Not parallel: it listens on
// the process's one socket, which other tests' queue commands would wake.
func TestQueueChangesWakeTheRunningBraid(t *testing.T) {
	state, _ := queueFixture(t)
	in, err := platform.Listen(platform.SocketPath(os.Getenv))
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	wakes := make(chan struct{}, 10)
	go in.Serve(ctx, func(h platform.Handoff) (platform.Answer, error) {
		if h.Wake {
			wakes <- struct{}{}
		}
		return platform.Answer{}, nil
	})
	for _, args := range [][]string{{"list"}, {"pause", "1"}, {"resume", "1"}, {"move", "1", "bottom"}, {"limit", "1", "500K"}} {
		code, _, errOut := runQueue(t, append([]string{"--state", state}, args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		// Forward returns once the answer came: a wake is in the
		// channel by now or was never sent.
		woke := len(wakes) == 1
		if woke {
			<-wakes
		}
		if want := args[0] != "list"; woke != want {
			t.Errorf("braid queue %v: woke the running Braid %v, want %v", args, woke, want)
		}
	}
}

// TestQueueListSync: a sync job is listed as its folder, with the files its
// sets record as synced, in words and in --json.
func TestQueueListSync(t *testing.T) {
	t.Parallel()
	state, dest := t.TempDir(), filepath.Join(t.TempDir(), "mirror")
	q, err := queue.Open(state)
	if err != nil {
		t.Fatal(err)
	}
	id, err := q.Add(queue.NewJob{Sync: true, Source: "https://data.example/", Dest: dest, Paused: true})
	if err != nil {
		q.Close()
		t.Fatal(err)
	}
	set, err := q.SyncSet(id, "https://data.example/capabilitylist.xml", dest)
	if err == nil {
		err = q.SyncedFiles(set.ID, []queue.SyncedFile{{Name: "a.csv", URL: "https://data.example/a.csv", Size: 3 << 20}})
	}
	q.Close()
	if err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runQueue(t, "--state", state, "list")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, w := range []string{"paused", "3.0 MiB in 1 file synced", "mirror/ (sync)", "https://data.example/"} {
		if !strings.Contains(out, w) {
			t.Errorf("list lacks %q:\n%s", w, out)
		}
	}
	code, out, errOut = runQueue(t, "--state", state, "list", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var jobs []queueJob
	if err := json.Unmarshal([]byte(out), &jobs); err != nil {
		t.Fatalf("list --json: %v\n%s", err, out)
	}
	if len(jobs) != 1 || jobs[0].Kind != "sync" || jobs[0].BytesDone != 3<<20 || len(jobs[0].Files) != 1 || jobs[0].Files[0] != "a.csv" {
		t.Errorf("list --json = %+v", jobs)
	}
}

// TestQueueRunThroughProxy: queue run takes --all-proxy for every
// download it runs. The job's only mirror is an nginx that serves only
// what came through tinyproxy: run without the flag, the job fails with
// the server's 403; resumed and run with it, the file lands.
func TestQueueRunThroughProxy(t *testing.T) {
	t.Parallel()
	data := bytes.Repeat([]byte("braid queue run through a proxy "), 1<<15) // 1 MiB
	proxy := netconftest.Tinyproxy(t, "", "")
	origin := netconftest.ProxiedOnly(t, map[string][]byte{"p.bin": data})
	state, dest := queueOneFile(t, "p.bin", data, origin.URL+"/p/p.bin")

	runQueue(t, "--state", state, "run", "--retry-for", "2s")
	if code, out, _ := runQueue(t, "--state", state, "list"); code != 0 || !strings.Contains(out, "failed") {
		t.Fatalf("around the proxy the job should fail (exit %d):\n%s", code, out)
	}
	if code, out, errOut := runQueue(t, "--state", state, "resume", "1"); code != 0 {
		t.Fatalf("resume: exit %d: %s %s", code, out, errOut)
	}
	if code, out, errOut := runQueue(t, "--state", state, "run", "--all-proxy", proxy); code != 0 {
		t.Fatalf("run through the proxy: exit %d: %s %s", code, out, errOut)
	}
	if got, err := os.ReadFile(filepath.Join(dest, "p.bin")); err != nil || !bytes.Equal(got, data) {
		t.Errorf("p.bin after the run through the proxy: %d bytes, %v", len(got), err)
	}
	if code, _, errOut := runQueue(t, "--state", state, "run", "--all-proxy", "gopher://x"); code != 2 || !strings.Contains(errOut, "--all-proxy") {
		t.Errorf("a proxy Braid cannot use: exit %d: %s", code, errOut)
	}
}

// TestQueueRunUsesTheStoredProxy: without a proxy flag, queue run goes
// through the proxy the window stored (Settings → Network); one that
// cannot be used is said, and the system's is used instead.
func TestQueueRunUsesTheStoredProxy(t *testing.T) {
	t.Parallel()
	data := bytes.Repeat([]byte("braid queue run through the stored proxy "), 1<<14)
	proxy := netconftest.Tinyproxy(t, "", "")
	origin := netconftest.ProxiedOnly(t, map[string][]byte{"s.bin": data})
	state, dest := queueOneFile(t, "s.bin", data, origin.URL+"/p/s.bin")
	store := func(url string) {
		t.Helper()
		q, err := queue.Open(state)
		if err != nil {
			t.Fatal(err)
		}
		defer q.Close()
		if err := q.UpdateSettings(func(s *queue.Settings) {
			s.Proxy = queue.Proxy{Mode: netconf.ProxyManual.String(), URL: url}
		}); err != nil {
			t.Fatal(err)
		}
	}

	store("gopher://x")
	code, _, errOut := runQueue(t, "--state", state, "run", "--retry-for", "2s")
	if !strings.Contains(errOut, "braid queue run: the proxy set in Settings → Network cannot be used, so the system's proxy is used instead: ") {
		t.Errorf("an unusable stored proxy: exit %d, stderr %q", code, errOut)
	}
	if code, out, _ := runQueue(t, "--state", state, "list"); code != 0 || !strings.Contains(out, "failed") {
		t.Fatalf("around the proxy the job should fail (exit %d):\n%s\nrun said: %s", code, out, errOut)
	}
	if code, out, errOut := runQueue(t, "--state", state, "resume", "1"); code != 0 {
		t.Fatalf("resume: exit %d: %s %s", code, out, errOut)
	}
	store(proxy)
	if code, out, errOut := runQueue(t, "--state", state, "run"); code != 0 {
		t.Fatalf("run through the stored proxy: exit %d: %s %s", code, out, errOut)
	}
	if got, err := os.ReadFile(filepath.Join(dest, "s.bin")); err != nil || !bytes.Equal(got, data) {
		t.Errorf("s.bin after the run through the stored proxy: %d bytes, %v", len(got), err)
	}
}
