package runner

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"braid/engine/metalink"
	"braid/engine/mirrortest"
	"braid/internal/testkit"
	"braid/queue"
	"braid/queue/queuetest"
)

// origin serves a dynamic metalink that a test can change, and counts
// how often it was fetched.
type origin struct {
	srv     *httptest.Server
	doc     atomic.Pointer[[]byte]
	fetches atomic.Int32
}

func newOrigin(t *testing.T) *origin {
	o := &origin{}
	o.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		o.fetches.Add(1)
		w.Header().Set("Content-Type", "application/metalink4+xml")
		w.Write(*o.doc.Load())
	}))
	t.Cleanup(o.srv.Close)
	return o
}

func (o *origin) URL() string { return o.srv.URL + "/x.meta4" }

// serve makes doc, marked dynamic with this origin, what the origin
// serves, and returns it.
func (o *origin) serve(t *testing.T, doc *metalink.Document) *metalink.Document {
	t.Helper()
	doc.Origin, doc.Dynamic = o.URL(), true
	var b bytes.Buffer
	if err := metalink.Write(&b, doc); err != nil {
		t.Fatal(err)
	}
	body := b.Bytes()
	o.doc.Store(&body)
	return doc
}

// A dynamic job whose only mirror fails asks its origin again, which now
// lists a second mirror; the pieces the first mirror sent are kept.
func TestDynamicAddsMirrorAfterMirrorsFail(t *testing.T) {
	t.Parallel()
	const pl = 128 << 10
	data := testkit.Data(2 << 20)
	bad := mirrortest.New(t, data, mirrortest.Addr("127.0.0.2"),
		mirrortest.Corrupt(pl, func(i int) bool { return i >= 6 }))
	good := mirrortest.New(t, data, mirrortest.Addr("127.0.0.3"))
	o := newOrigin(t)
	o.serve(t, describe(t, "x.bin", data, pl, bad, good))
	dest := t.TempDir()
	q, id := addDynamic(t, o, describe(t, "x.bin", data, pl, bad), dest)
	if err := runner(q).RunJob(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(dest, "x.bin"))
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("file: %d bytes, %v", len(got), err)
	}
	if n := o.fetches.Load(); n != 1 {
		t.Fatalf("origin fetched %d times, want once, after the mirror failed", n)
	}
	// The pieces the first mirror delivered (0 to 5) are kept: the added
	// mirror sends bytes, but none of those. (How often it sends the
	// others depends on the machine's load: a cut connection's piece is
	// asked again.)
	if good.BytesServed() == 0 {
		t.Fatal("the added mirror served nothing")
	}
	for _, r := range good.Ranges() {
		if r.Method == http.MethodGet && r.Sent > 0 && r.Off < 6*pl {
			t.Fatalf("the added mirror sent bytes %d to %d, within the pieces the first mirror delivered", r.Off, r.Off+r.Sent)
		}
	}
	j, err := q.Get(id)
	if err != nil {
		t.Fatal(err)
	}
	if j.State != queue.Done || len(j.Files[0].Mirrors) != 2 {
		t.Fatalf("job %s with mirrors %+v", j.State, j.Files[0].Mirrors)
	}
}

// When the origin describes other bytes, the publisher has a new version:
// the job says so and downloads it from scratch.
func TestDynamicNewVersion(t *testing.T) {
	t.Parallel()
	const pl = 64 << 10
	old, fresh := testkit.Data(500_000), testkit.Data(600_000)
	gone := mirrortest.New(t, old, mirrortest.Status(http.StatusNotFound))
	m := mirrortest.New(t, fresh)
	o := newOrigin(t)
	next := describe(t, "x.bin", fresh, pl, m)
	next.Files[0].Version = "2.0"
	o.serve(t, next)
	dest := t.TempDir()
	// A .part of the old version is left from an earlier run.
	if err := os.WriteFile(filepath.Join(dest, "x.bin.part"), old[:300_000], 0o644); err != nil {
		t.Fatal(err)
	}
	q, id := addDynamic(t, o, describe(t, "x.bin", old, pl, gone), dest)
	if err := runner(q).RunJob(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(dest, "x.bin"))
	if err != nil || !bytes.Equal(got, fresh) {
		t.Fatalf("file: %d bytes, %v; want the new version", len(got), err)
	}
	j, err := q.Get(id)
	if err != nil || !strings.Contains(j.Notice, "new version of x.bin, version 2.0") {
		t.Fatalf("notice %q, %v", j.Notice, err)
	}
	j, err = q.Get(id)
	if err != nil {
		t.Fatal(err)
	}
	if j.Files[0].Size != int64(len(fresh)) || j.Doc.Files[0].Hashes[0] != next.Files[0].Hashes[0] {
		t.Fatalf("stored file %+v: still the old version", j.Files[0])
	}
}

// A dynamic job that resumes after queue.RefreshAfter asks its origin first.
//
// Not parallel: it sets queue.RefreshAfter, which the other tests' runs
// read (parallel tests wait until every sequential one has ended).
func TestDynamicRefreshWhenStale(t *testing.T) {
	data := testkit.Data(300_000)
	a := mirrortest.New(t, data, mirrortest.Addr("127.0.0.2"))
	b := mirrortest.New(t, data, mirrortest.Addr("127.0.0.3"))
	o := newOrigin(t)
	o.serve(t, describe(t, "x.bin", data, 64<<10, a, b))
	q, id := addDynamic(t, o, describe(t, "x.bin", data, 64<<10, a), t.TempDir())
	saved := queue.RefreshAfter
	queue.RefreshAfter = 0
	defer func() { queue.RefreshAfter = saved }()
	if err := runner(q).RunJob(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	j, err := q.Get(id)
	if err != nil {
		t.Fatal(err)
	}
	if o.fetches.Load() != 1 || len(j.Files[0].Mirrors) != 2 {
		t.Fatalf("origin fetched %d times; mirrors %+v", o.fetches.Load(), j.Files[0].Mirrors)
	}
}

// addDynamic queues doc, marked dynamic with origin o, into a new queue
// going to dest.
func addDynamic(t *testing.T, o *origin, doc *metalink.Document, dest string) (*queue.Queue, int64) {
	t.Helper()
	doc.Origin, doc.Dynamic = o.URL(), true
	q := queuetest.Open(t, queue.Open, t.TempDir())
	id, err := q.Add(queue.NewJob{Source: o.URL(), Dest: dest, Doc: doc})
	if err != nil {
		t.Fatal(err)
	}
	return q, id
}
