package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"database/sql"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"braid/engine/metalink"
	"braid/engine/mirrortest"
	"braid/engine/piece"
	"braid/queue"
)

// TestGetResumesThroughQueue interrupts `braid get --state` halfway and
// runs it again: the second run fetches only what the journal had not
// recorded, and the queue shows the job done.
func TestGetResumesThroughQueue(t *testing.T) {
	t.Parallel()
	const size = 4 << 20
	data := bytes.Repeat([]byte("get resumes via the queue. "), size/27+1)[:size]
	m := mirrortest.New(t, data, mirrortest.Rate(1<<20))
	f, err := piece.Describe(context.Background(), bytes.NewReader(data), size, "g.bin", 256<<10, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.URLs = []metalink.URL{{URL: m.URL(), Priority: 1}}
	dir, state, dest := t.TempDir(), t.TempDir(), t.TempDir()
	src := filepath.Join(dir, "g.meta4")
	var doc bytes.Buffer
	if err := metalink.Write(&doc, &metalink.Document{Version: 4, Files: []metalink.File{f}}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(src, doc.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	get := func(ctx context.Context) (int, string) {
		var out bytes.Buffer
		code := cmdGet(ctx, []string{"--state", state, "-d", dest, src}, &out, &out)
		return code, out.String()
	}
	// Watch the database as another program would: a plain read-only
	// connection, so that the watching takes no part in who owns the queue.
	db, err := sql.Open("sqlite3", "file:"+filepath.Join(state, queue.DBName)+"?mode=ro&_busy_timeout=1000")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	recorded := func() (int, queue.State) {
		var bits []byte
		var n int
		var st string
		err := db.QueryRow(`SELECT p.bits, p.count, j.state FROM pieces p
			JOIN files f ON f.id = p.file JOIN jobs j ON j.id = f.job`).Scan(&bits, &n, &st)
		if err != nil {
			return 0, ""
		}
		b, err := piece.UnmarshalBitfield(bits, n)
		if err != nil {
			return 0, ""
		}
		return b.Count(), queue.State(st)
	}

	ctx, cancel := context.WithCancel(context.Background())
	first := make(chan int, 1)
	var firstOut string
	go func() { code, out := get(ctx); firstOut = out; first <- code }()
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if n, _ := recorded(); n >= 4 {
			break
		}
		if time.Now().After(deadline) {
			cancel()
			<-first
			t.Logf("get said:\n%s", firstOut)
			t.Fatal("no pieces recorded in 20 s")
		}
	}
	cancel()
	if code := <-first; code == 0 {
		t.Fatal("the interrupted get exited 0")
	}
	n, st := recorded()
	if st != queue.Paused || n < 4 || n >= 16 {
		t.Fatalf("after the interruption: job %s with %d of 16 pieces", st, n)
	}
	servedBefore := m.BytesServed()

	if code, out := get(context.Background()); code != 0 {
		t.Fatalf("second get: exit %d\n%s", code, out)
	}
	if got, err := os.ReadFile(filepath.Join(dest, "g.bin")); err != nil || !bytes.Equal(got, data) {
		t.Fatalf("file after resume: %d bytes, %v", len(got), err)
	}
	again := m.BytesServed() - servedBefore
	t.Logf("interrupted with %d of 16 pieces recorded; the resume fetched %d bytes of %d", n, again, size)
	if limit := int64(size) - int64(n)*(256<<10) + 1<<20; again > limit {
		t.Errorf("the resume fetched %d bytes, more than the unrecorded part plus 1 MiB (%d)", again, limit)
	}
	if n, st := recorded(); st != queue.Done || n != 16 {
		t.Errorf("job after the resume: %s with %d of 16 pieces", st, n)
	}
}

// TestGetStateNotices damages the queue database before `braid get
// --state`: the queue moves it aside and starts afresh, and get says so on
// stderr, naming where the old one went, then downloads as usual.
func TestGetStateNotices(t *testing.T) {
	t.Parallel()
	data := getData(200 << 10)
	m := mirrortest.New(t, data)
	src := writeMeta4(t, t.TempDir(), "n.bin", data, 64<<10, "", m.URL())
	state, dest := t.TempDir(), t.TempDir()
	junk := make([]byte, 64<<10)
	rand.Read(junk)
	if err := os.WriteFile(filepath.Join(state, queue.DBName), junk, 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if code := cmdGet(context.Background(), []string{"--state", state, "-d", dest, src}, &out, &errb); code != 0 {
		t.Fatalf("exit %d\n%s", code, errb.String())
	}
	aside, _ := filepath.Glob(filepath.Join(state, queue.DBName+".corrupt-*"))
	if len(aside) != 1 {
		t.Fatalf("moved aside: %v", aside)
	}
	if msg := errb.String(); !strings.Contains(msg, "damaged") || !strings.Contains(msg, aside[0]) {
		t.Errorf("stderr %q does not tell the database was damaged and moved to %s", msg, aside[0])
	}
	if got, err := os.ReadFile(filepath.Join(dest, "n.bin")); err != nil || !bytes.Equal(got, data) {
		t.Errorf("n.bin after the notice: %v", err)
	}

	// Told once: the next get finds the new queue sound.
	errb.Reset()
	if code := cmdGet(context.Background(), []string{"--state", state, "-d", dest, src}, &out, &errb); code != 0 || strings.Contains(errb.String(), "damaged") {
		t.Errorf("second get: exit %d, stderr %q", code, errb.String())
	}
}

// TestGetStateKeepsOrigin gets a plain URL that needs a password and
// sends an ETag: the queue keeps the origin's ETag and Referer for later
// runs, and `braid queue list` shows the source without the password.
func TestGetStateKeepsOrigin(t *testing.T) {
	t.Parallel()
	data := getData(300 << 10)
	m := mirrortest.New(t, data, mirrortest.Path("/pub/o.iso"), mirrortest.BasicAuth("me", "s3cret"),
		mirrortest.Header("ETag", `"o1"`))
	u, err := url.Parse(m.URL())
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.UserPassword("me", "s3cret")
	state, dest := t.TempDir(), t.TempDir()
	var out, errb bytes.Buffer
	if code := cmdGet(context.Background(), []string{"--state", state, "-d", dest, u.String()}, &out, &errb); code != 0 {
		t.Fatalf("exit %d\n%s", code, errb.String())
	}
	q, err := queue.Open(state)
	if err != nil {
		t.Fatal(err)
	}
	jobs, err := q.List()
	q.Close()
	if err != nil || len(jobs) != 1 {
		t.Fatalf("jobs %+v, %v", jobs, err)
	}
	if want := (queue.Origin{ETag: `"o1"`, Referer: m.URL()}); jobs[0].Origin != want || jobs[0].State != queue.Done {
		t.Errorf("job %s with origin %+v, want done with %+v", jobs[0].State, jobs[0].Origin, want)
	}
	for _, args := range [][]string{{"list"}, {"list", "--json"}} {
		var lo, le bytes.Buffer
		if code := cmdQueue(context.Background(), append([]string{"--state", state}, args...), &lo, &le); code != 0 {
			t.Fatalf("queue %v: exit %d\n%s", args, code, le.String())
		}
		if strings.Contains(lo.String(), "s3cret") || !strings.Contains(lo.String(), m.URL()) {
			t.Errorf("queue %v shows:\n%s", args, lo.String())
		}
	}
}
