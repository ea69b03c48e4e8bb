package runner

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"braid/engine"
	"braid/engine/metalink"
	"braid/engine/mirrortest"
	"braid/internal/testkit"
	"braid/queue"
	"braid/queue/queuetest"
)

// TestRunMarksMismatch runs a job whose mirror serves other bytes than the
// metalink's hash: the runner fails it and flags the file.
func TestRunMarksMismatch(t *testing.T) {
	t.Parallel()
	data := testkit.Data(300 << 10)
	m := mirrortest.New(t, data)
	other := mirrortest.New(t, data, mirrortest.Addr("127.0.0.2"))
	doc := &metalink.Document{Version: 4, Files: []metalink.File{{
		Name: "x.bin", Size: int64(len(data)),
		Hashes: []metalink.Hash{{Type: "sha-256", Value: strings.Repeat("ab", 32)}},
		URLs:   []metalink.URL{{URL: m.URL(), Priority: 1}, {URL: other.URL(), Priority: 2}},
	}}}
	q := queuetest.Open(t, queue.Open, t.TempDir())
	id, err := q.Add(queue.NewJob{Source: "x.meta4", Dest: t.TempDir(), Doc: doc})
	if err != nil {
		t.Fatal(err)
	}
	if err := runner(q).RunJob(context.Background(), id); !errors.Is(err, engine.ErrHashMismatch) {
		t.Fatalf("RunJob: %v, want ErrHashMismatch", err)
	}
	j, err := q.Get(id)
	if err != nil {
		t.Fatal(err)
	}
	if j.State != queue.Failed || !j.Mismatch || !j.Files[0].Mismatch {
		t.Errorf("job %s, mismatch %v (file %v)", j.State, j.Mismatch, j.Files[0].Mismatch)
	}
}

// TestRunSendsOrigin stores a plain URL's ETag and Referer with its job;
// the runner, not the command that resolved the URL, sends them: the pref
// mirror is held to the ETag and every mirror gets the Referer.
func TestRunSendsOrigin(t *testing.T) {
	t.Parallel()
	data := testkit.Data(300 << 10)
	sum := sha256.Sum256(data)
	const etag = `"v1"`
	var mu sync.Mutex
	referers := map[string]bool{}
	pref := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		referers[r.Header.Get("Referer")] = true
		mu.Unlock()
		w.Header().Set("ETag", etag)
		http.ServeContent(w, r, "p.bin", time.Unix(0, 0), bytes.NewReader(data))
	}))
	defer pref.Close()
	for _, tc := range []struct {
		name   string
		origin queue.Origin
		ok     bool
	}{
		{"same ETag", queue.Origin{ETag: etag, Referer: "https://me:pw@origin.example/p.bin"}, true},
		{"another ETag", queue.Origin{ETag: `"v2"`, Referer: "https://origin.example/p.bin"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mu.Lock()
			clear(referers)
			mu.Unlock()
			doc := &metalink.Document{Version: 4, Files: []metalink.File{{
				Name: "p.bin", Size: int64(len(data)),
				Hashes: []metalink.Hash{{Type: "sha-256", Value: hex.EncodeToString(sum[:])}},
				URLs:   []metalink.URL{{URL: pref.URL + "/p.bin", Priority: 1, Pref: true}},
			}}}
			q := queuetest.Open(t, queue.Open, t.TempDir())
			id, err := q.Add(queue.NewJob{Source: "https://origin.example/p.bin", Dest: t.TempDir(), Doc: doc, Origin: tc.origin})
			if err != nil {
				t.Fatal(err)
			}
			j, err := q.Get(id)
			if err != nil {
				t.Fatal(err)
			}
			if want := (queue.Origin{ETag: tc.origin.ETag, Referer: "https://origin.example/p.bin"}); j.Origin != want {
				t.Fatalf("stored origin %+v, want %+v", j.Origin, want)
			}
			err = runner(q).RunJob(context.Background(), id)
			if tc.ok != (err == nil) {
				t.Fatalf("RunJob: %v, want success %v", err, tc.ok)
			}
			if !tc.ok && !strings.Contains(err.Error(), "ETag") {
				t.Errorf("the failure does not say the ETag differs: %v", err)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(referers) != 1 || !referers["https://origin.example/p.bin"] {
				t.Errorf("the mirror was sent Referer %v, want only the origin's URL", referers)
			}
		})
	}
}

// TestRunnerClientFromSettings: a Runner without a Client downloads with
// the limits the user set.
func TestRunnerClientFromSettings(t *testing.T) {
	t.Parallel()
	data := testkit.Data(200 << 10)
	m := mirrortest.New(t, data)
	q := queuetest.Open(t, queue.Open, t.TempDir())
	if err := q.UpdateSettings(func(s *queue.Settings) { s.MaxConns, s.MaxConnsPerMirror, s.SpeedLimit = 5, 3, 1<<30 }); err != nil {
		t.Fatal(err)
	}
	id, err := q.Add(queue.NewJob{Source: "c.meta4", Dest: t.TempDir(), Doc: describe(t, "c.bin", data, 64<<10, m)})
	if err != nil {
		t.Fatal(err)
	}
	r := &Runner{Queue: q}
	if err := r.RunJob(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	if c := r.Client; c == nil || c.MaxConns != 5 || c.MaxConnsPerMirror != 3 || c.Limit != 1<<30 {
		t.Errorf("the runner's client %+v does not follow the settings", c)
	}
}

// TestRunnerLive reads a running job's download through Live, as the
// window does, and finds the engine's own snapshot of the file.
func TestRunnerLive(t *testing.T) {
	t.Parallel()
	data := testkit.Data(2 << 20)
	m := mirrortest.New(t, data, mirrortest.Rate(512<<10))
	q := queuetest.Open(t, queue.Open, t.TempDir())
	id, err := q.Add(queue.NewJob{Source: "l.meta4", Dest: t.TempDir(), Doc: describe(t, "l.bin", data, 128<<10, m)})
	if err != nil {
		t.Fatal(err)
	}
	r := runner(q)
	if _, ok := r.Live(id); ok {
		t.Fatal("Live before the run")
	}
	res := make(chan error, 1)
	go func() { res <- r.RunJob(context.Background(), id) }()
	var dl *engine.Download
	testkit.WaitFor(t, "a live download with bytes", func() bool {
		var ok bool
		dl, ok = r.Live(id)
		return ok && dl.Snapshot().Bytes > 0
	})
	if _, ok := r.Live(id + 1); ok {
		t.Error("Live of a job that is not running")
	}
	if s := dl.Snapshot(); s.Name != "l.bin" || s.Size != int64(len(data)) || s.State != engine.StateDownloading {
		t.Errorf("live snapshot: %s %d bytes, %v", s.Name, s.Size, s.State)
	}
	if err := <-res; err != nil {
		t.Fatal(err)
	}
	if _, ok := r.Live(id); ok {
		t.Error("Live after the job ended")
	}
	if s := dl.Snapshot(); s.State != engine.StateDone || s.Bytes != int64(len(data)) {
		t.Errorf("the download kept after its end says %v, %d bytes", s.State, s.Bytes)
	}
}
