package runner

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"braid/engine"
	"braid/engine/mirrortest"
	"braid/engine/netconf"
	"braid/engine/netconf/netconftest"
	"braid/engine/signature"
	"braid/queue"
	"braid/queue/queuetest"
)

// quietObserver keeps the results of a get.
type quietObserver struct {
	mu      sync.Mutex
	results []Result
	notes   []Note
}

func (o *quietObserver) Interval() time.Duration               { return 100 * time.Millisecond }
func (o *quietObserver) Start(*FileRun)                        {}
func (o *quietObserver) Progress(*FileRun, Progress)           {}
func (o *quietObserver) Signature(*FileRun, signature.Outcome) {}
func (o *quietObserver) Check(CheckEvent)                      {}
func (o *quietObserver) Note(n Note) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.notes = append(o.notes, n)
}
func (o *quietObserver) Result(r Result) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.results = append(o.results, r)
}

// TestGetKeepsNetForQueueRun: a get with a token header fetches a file
// from nginx's header-guarded place and keeps the header with its job;
// a job added to the queue with a cookie is run by RunJob with it (the
// window's and `braid queue run`'s way). Without them nginx answers 403.
//
// Not parallel: it sets the queue's process-wide keyring
// (queue.UseKeyring), which also resets the once-per-process note that
// secrets are kept for the session only.
func TestGetKeepsNetForQueueRun(t *testing.T) {
	queue.UseKeyring(nil)
	data := mirrortest.Bytes(1<<20+5, 4)
	ng := netconftest.Nginx(t, map[string][]byte{"f.bin": data}, "u", "p")
	state, dir := t.TempDir(), t.TempDir()

	link := ng.URL + "/header/f.bin"
	ss, err := netconf.Settings{Headers: []string{netconftest.HeaderName + ": " + netconftest.HeaderValue},
		Links: []string{link}, NoNetrc: true}.Open()
	if err != nil {
		t.Fatal(err)
	}
	obs := &quietObserver{}
	g := &Get{Dir: dir, State: state, Client: &engine.Client{}, Net: ss, Observer: obs}
	if !g.Run(context.Background(), []string{link}) {
		t.Fatalf("get failed: %+v", obs.results)
	}
	q := queuetest.Open(t, queue.Open, state)
	jobs, err := q.List()
	if err != nil || len(jobs) != 1 {
		t.Fatalf("jobs %v (%v)", jobs, err)
	}
	kept, ok, lost, err := q.Net(jobs[0].ID)
	if err != nil || !ok || lost || len(kept.Headers) != 1 || kept.Headers[0] != netconftest.HeaderName+": "+netconftest.HeaderValue {
		t.Errorf("the get's header was not kept with its job: ok %v lost %v err %v", ok, lost, err)
	}

	cookieLink := ng.URL + "/cookie/f.bin"
	doc := queuetest.Doc(int64(len(data)), 0, "c.bin")
	doc.Files[0].URLs = doc.Files[0].URLs[:1]
	doc.Files[0].URLs[0].URL = cookieLink
	doc.Files[0].Hashes = nil
	add := func(net netconf.Settings) int64 {
		t.Helper()
		id, err := q.Add(queue.NewJob{Source: cookieLink, Dest: dir, Doc: doc, Net: &net})
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	r := &Runner{Queue: q, Client: &engine.Client{}}
	defer r.Close()
	withCookie := add(netconf.Settings{Headers: []string{"Cookie: " + netconftest.CookieName + "=" + netconftest.CookieValue},
		Links: []string{cookieLink}, NoNetrc: true})
	if err := r.RunJob(context.Background(), withCookie); err != nil {
		t.Fatalf("with the cookie kept: %v", err)
	}
	on, err := os.ReadFile(filepath.Join(dir, "c.bin"))
	if err != nil || !bytes.Equal(on, data) {
		t.Fatalf("c.bin: %v", err)
	}
	if _, err := RemoveWithFiles(q, withCookie); err != nil {
		t.Fatal(err)
	}
	// The same job with the cookie given for another host: not sent.
	elsewhere := add(netconf.Settings{Headers: []string{"Cookie: " + netconftest.CookieName + "=" + netconftest.CookieValue},
		Links: []string{"http://elsewhere.example/f.bin"}, NoNetrc: true})
	if err := r.RunJob(context.Background(), elsewhere); err == nil {
		t.Fatal("the cookie went to a host it was not given for")
	}
}
