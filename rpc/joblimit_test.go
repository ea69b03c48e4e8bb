package rpc

import (
	"strings"
	"testing"
	"time"

	"braid/engine/mirrortest"
	"braid/runner"
)

// aria2.changeOption's max-download-limit is the job's own speed limit:
// in aria2's units (bytes, K, M), read back by getOption as a string of
// bytes, applied at once to the running download without restarting it
// (the runner's limit for the job, the same engine download), and kept
// across a restart of Braid. 0 removes it.
func TestChangeOptionSpeedLimit(t *testing.T) {
	t.Parallel()
	state, dir := t.TempDir(), t.TempDir()
	data := mirrortest.Bytes(32<<20, 3)
	m := mirrortest.New(t, data, mirrortest.Rate(2<<20))
	b := openBraid(t, state, dir, Options{})
	r := b.dl.Live.(*runner.Runner)
	gid := b.call(t, "aria2.addUri", []string{m.URL()}, map[string]any{"out": "limited.bin"}).(string)
	if got := b.call(t, "aria2.getOption", gid).(map[string]any)["max-download-limit"]; got != "0" {
		t.Fatalf("a new download's max-download-limit is %v, want \"0\"", got)
	}
	id := int64(1)
	deadline := time.Now().Add(20 * time.Second)
	for _, ok := r.Live(id); !ok; _, ok = r.Live(id) {
		if time.Now().After(deadline) {
			t.Fatal("the download did not start")
		}
		time.Sleep(20 * time.Millisecond)
	}
	dl, _ := r.Live(id)
	for _, tc := range []struct{ set, want string }{{"300K", "307200"}, {"1M", "1048576"}, {"65536", "65536"}} {
		if res := b.call(t, "aria2.changeOption", gid, map[string]any{"max-download-limit": tc.set}); res != "OK" {
			t.Fatalf("changeOption %s: %v", tc.set, res)
		}
		if got := b.call(t, "aria2.getOption", gid).(map[string]any)["max-download-limit"]; got != tc.want {
			t.Errorf("getOption after %s: %v, want %q", tc.set, got, tc.want)
		}
		want, _ := parseSize(tc.set)
		if got, ok := r.JobLimit(id); !ok || got != want {
			t.Errorf("after changeOption %s the running download's limit is %d (running %v), want %d", tc.set, got, ok, want)
		}
	}
	if now, ok := r.Live(id); !ok || now != dl {
		t.Fatal("changing the limit restarted the download")
	}
	if st := b.call(t, "aria2.tellStatus", gid, []string{"status"}).(map[string]any); st["status"] != "active" {
		t.Fatalf("after the changes the download is %v", st)
	}

	b.close()
	b = openBraid(t, state, dir, Options{})
	if got := b.call(t, "aria2.getOption", gid).(map[string]any)["max-download-limit"]; got != "65536" {
		t.Errorf("after a restart max-download-limit is %v, want the kept \"65536\"", got)
	}
	b.call(t, "aria2.changeOption", gid, map[string]any{"max-download-limit": "0"})
	if got := b.call(t, "aria2.getOption", gid).(map[string]any)["max-download-limit"]; got != "0" {
		t.Errorf("after removing it max-download-limit is %v, want \"0\"", got)
	}
}

// addUri's max-download-limit option gives the new download its limit; a
// size that does not read is refused with aria2's words and adds nothing.
func TestAddURIWithSpeedLimit(t *testing.T) {
	t.Parallel()
	b := newBraid(t, Options{})
	m := mirrortest.New(t, mirrortest.Bytes(1000, 1))
	gid := b.call(t, "aria2.addUri", []string{m.URL()}, map[string]any{"pause": "true", "max-download-limit": "2M"}).(string)
	if got := b.call(t, "aria2.getOption", gid).(map[string]any)["max-download-limit"]; got != "2097152" {
		t.Errorf("max-download-limit of a download added with 2M: %v", got)
	}
	if j, err := b.q.Get(1); err != nil || j.Limit != 2<<20 {
		t.Errorf("the queue keeps %d (%v), want %d", j.Limit, err, 2<<20)
	}
	if msg := b.callErr(t, "aria2.addUri", []string{m.URL() + "?2"}, map[string]any{"max-download-limit": "lots"}); !strings.Contains(msg, "is not a size") {
		t.Errorf("a limit that is not a size: %q", msg)
	}
	if jobs, _ := b.q.List(); len(jobs) != 1 {
		t.Errorf("%d jobs after a refused add, want 1", len(jobs))
	}
}
