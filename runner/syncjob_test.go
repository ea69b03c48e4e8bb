package runner

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"braid/engine"
	"braid/engine/netconf"
	"braid/engine/netconf/netconftest"
	"braid/engine/resourcesync/rstest"
	"braid/internal/testkit"
	"braid/queue"
	"braid/queue/queuetest"
)

// TestSyncJob runs a sync job as a queue job: the window watches it in
// LiveSync, with a file in progress in its Snapshot; a pause stops it,
// and the next run finishes the folder, records it as the job's, and
// the job is done.
func TestSyncJob(t *testing.T) {
	t.Parallel()
	src := rstest.New(t)
	data := make([]byte, 256<<10)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range data {
		data[i] = byte(r.Uint32())
	}
	src.Put("/big.bin", data)
	src.Put("/small.txt", []byte("small\n"))
	q := queuetest.Open(t, queue.Open, t.TempDir())
	dir := t.TempDir()
	id, err := q.Add(queue.NewJob{Sync: true, Source: src.URL(), Dest: dir})
	if err != nil {
		t.Fatal(err)
	}

	slow := &Runner{Queue: q, Client: &engine.Client{Limit: 32 << 10}, SyncOptions: SyncOptions{Jobs: 2}}
	ran := make(chan error, 1)
	go func() { ran <- slow.RunJob(context.Background(), id) }()
	var j *SyncJob
	testkit.WaitFor(t, "big.bin to show progress", func() bool {
		select {
		case err := <-ran:
			t.Fatalf("the sync ended before it was paused: %v", err)
		default:
		}
		var ok bool
		j, ok = slow.LiveSync(id)
		return ok && slices.ContainsFunc(j.Snapshot().Files, func(f engine.Snapshot) bool { return f.Name == "big.bin" && f.Bytes > 0 })
	})
	if err := q.Pause(id, ""); err != nil {
		t.Fatal(err)
	}
	if err := <-ran; !errors.Is(err, errUserPaused) {
		t.Fatalf("the paused sync job: %v, want the user's pause", err)
	}
	if s, _ := q.StateOf(id); s != queue.Paused {
		t.Fatalf("the paused sync job is %s", s)
	}

	if err := q.Resume(id); err != nil {
		t.Fatal(err)
	}
	fast := &Runner{Queue: q, Client: &engine.Client{}}
	if err := fast.RunJob(context.Background(), id); err != nil {
		t.Fatalf("second run: %v", err)
	}
	if s, _ := q.StateOf(id); s != queue.Done {
		t.Fatalf("the synced job is %s", s)
	}
	j, ok := fast.LiveSync(id)
	if !ok {
		t.Fatal("the runner does not keep the sync it ran")
	}
	res, err := j.Wait()
	if err != nil || !res.OK() {
		t.Fatalf("second run: %+v, %v", res, err)
	}
	s := j.Snapshot()
	if len(s.Files) != 0 || s.Counts[SyncFetched]+s.Counts[SyncKept] != 2 || len(s.Events) != 2 || s.Size != int64(len(data))+6 {
		t.Fatalf("snapshot after the end: %+v", s)
	}
	got, err := os.ReadFile(filepath.Join(dir, "big.bin"))
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("big.bin: %v", err)
	}
	sets, err := q.SyncSets(id)
	if err != nil || len(sets) != 1 || sets[0].SyncedAt.IsZero() {
		t.Fatalf("the finished sync is not recorded: %+v, %v", sets, err)
	}
}

// TestSyncJobFails: a sync whose file cannot be fetched fails its job
// with the counts, and a removed sync job takes its record with it.
func TestSyncJobFails(t *testing.T) {
	t.Parallel()
	src := rstest.New(t)
	src.Put("/a.txt", []byte("a\n"))
	src.Put("/b.txt", []byte("b\n"))
	src.Lie("/b.txt", rstest.Hash([]byte("c\n"))) // its bytes do not match the list's hash
	q := queuetest.Open(t, queue.Open, t.TempDir())
	id, err := q.Add(queue.NewJob{Sync: true, Source: src.URL(), Dest: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	r := &Runner{Queue: q, Client: &engine.Client{}}
	if err := r.RunJob(context.Background(), id); err == nil {
		t.Fatal("a sync with a file that failed succeeded")
	}
	j, err := q.Get(id)
	if err != nil || j.State != queue.Failed || !strings.Contains(j.Error, "1 fetched, 1 failed") {
		t.Fatalf("the sync job after a failed file: %s %q (%v)", j.State, j.Error, err)
	}
	if err := q.Remove(id); err != nil {
		t.Fatal(err)
	}
	if sets, err := q.SyncSets(id); err != nil || len(sets) != 0 {
		t.Fatalf("a removed sync job keeps %d sets (%v)", len(sets), err)
	}
}

// TestSyncJobKeepsTheLatestEvents: past maxSyncEvents outcomes a SyncJob
// keeps the latest ones, oldest first, and still counts them all.
func TestSyncJobKeepsTheLatestEvents(t *testing.T) {
	t.Parallel()
	j := &SyncJob{counts: map[SyncKind]int{}}
	const n = maxSyncEvents + 57
	for i := range n {
		j.record(nil, SyncEvent{Kind: SyncFetched, Name: strconv.Itoa(i), Bytes: 1}, true)
	}
	s := j.Snapshot()
	if len(s.Events) != maxSyncEvents || s.Counts[SyncFetched] != n || s.Bytes != n {
		t.Fatalf("%d events, %d counted, %d bytes; want %d, %d, %d", len(s.Events), s.Counts[SyncFetched], s.Bytes, maxSyncEvents, n, n)
	}
	for i, e := range s.Events {
		if want := strconv.Itoa(n - maxSyncEvents + i); e.Name != want {
			t.Fatalf("event %d is %s, want %s", i, e.Name, want)
		}
	}
}

// TestSyncJobThroughProxy: a sync job's documents go where its files go,
// through the client's proxy (tinyproxy): the source refuses every
// request that did not come through it.
func TestSyncJobThroughProxy(t *testing.T) {
	t.Parallel()
	proxy := netconftest.Tinyproxy(t, "", "")
	src := rstest.New(t)
	src.OnlyVia = "tinyproxy"
	data := testkit.Data(100 << 10)
	src.Put("/a.bin", data)
	n, err := netconf.NewNetwork(netconf.Proxy{Mode: netconf.ProxyManual, URL: proxy})
	if err != nil {
		t.Fatal(err)
	}
	q := queuetest.Open(t, queue.Open, t.TempDir())
	dir := t.TempDir()
	id, err := q.Add(queue.NewJob{Sync: true, Source: src.URL(), Dest: dir})
	if err != nil {
		t.Fatal(err)
	}
	r := &Runner{Queue: q, Client: &engine.Client{Network: n}}
	if err := r.RunJob(context.Background(), id); err != nil {
		t.Fatalf("the sync through the proxy: %v", err)
	}
	if got, err := os.ReadFile(filepath.Join(dir, "a.bin")); err != nil || !bytes.Equal(got, data) {
		t.Fatalf("a.bin after the sync: %v", err)
	}

	// A check compares through the same proxy.
	res, err := Sync(context.Background(), q, src.URL(), dir, SyncOptions{Client: &engine.Client{Network: n}, Check: true})
	if err != nil || !res.OK() {
		t.Fatalf("a check through the proxy: %+v, %v", res, err)
	}
}

// TestSyncJobWithLogin: a sync job added with a login (AddOptions.Net)
// reads the source's documents and files with it; the login's password
// is not in the state folder. Added without one, the sync fails and says
// the source asked for a login.
func TestSyncJobWithLogin(t *testing.T) {
	t.Parallel()
	const pw = "sync-login-pw-5"
	src := rstest.New(t)
	src.User, src.Password = "ann", pw
	data := testkit.Data(64 << 10)
	src.Put("/a.bin", data)
	state := t.TempDir()
	q := queuetest.Open(t, queue.Open, state)
	r := &Runner{Queue: q, Client: &engine.Client{}}

	bare, err := Add(context.Background(), q, src.URL(), AddOptions{Dir: t.TempDir(), Sync: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.RunJob(context.Background(), bare.ID); err == nil || !strings.Contains(err.Error(), "401") {
		t.Errorf("a sync without the login it needs: %v", err)
	}

	dir := t.TempDir()
	added, err := Add(context.Background(), q, src.URL(), AddOptions{Dir: dir, Sync: true,
		Net: &netconf.Settings{HTTPUser: "ann", HTTPPasswd: pw, NoNetrc: true, Links: []string{src.URL()}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.RunJob(context.Background(), added.ID); err != nil {
		t.Fatalf("the sync with its login: %v", err)
	}
	if got, err := os.ReadFile(filepath.Join(dir, "a.bin")); err != nil || !bytes.Equal(got, data) {
		t.Fatalf("a.bin after the sync: %v", err)
	}
	testkit.NoSecretIn(t, state, pw)
}
