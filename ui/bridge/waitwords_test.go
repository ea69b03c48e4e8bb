package bridge

import (
	"strings"
	"testing"
	"time"

	"braid/engine"
	"braid/engine/metalink"
	"braid/queue"
	"braid/ui"
)

// A file waiting for its mirrors says when it tries again: the time to
// the next try, or "trying again now" while its tries are under way
// (connections open, no answer yet: the engine has no next try then).
func TestWaitingFileSaysWhenItTries(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		next    time.Time
		reason  string
		want    string
		wantNot string
	}{
		{"tries under way", time.Time{}, "", "waiting for the network, trying again now", "-"},
		{"stalled mirrors", time.Time{}, "stalled", "Waiting; trying again now.", "-"},
		{"a try ahead", time.Now().Add(19500 * time.Millisecond), "", "waiting for the network, next try in 20 s", "now"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &engine.Snapshot{Name: "f.bin", Size: 100, Bytes: 40, State: engine.StateWaiting, NextTry: tc.next, ETA: -1,
				Mirrors: []engine.MirrorSnapshot{{URL: "http://a.example/f.bin", State: engine.MirrorActive, Reason: tc.reason}}}
			var fd ui.FileDetail
			applySnapshot(&fd, s, false)
			if fd.State != ui.FileWaiting || !strings.Contains(fd.Err, tc.want) || strings.Contains(fd.Err, tc.wantNot) {
				t.Errorf("state %v, words %q; want %q without %q", fd.State, fd.Err, tc.want, tc.wantNot)
			}
		})
	}
}

// A mirror of a job the engine has not run this session has sent an
// unknown number of bytes (the queue keeps its strikes, not its bytes):
// the Mirrors tab leaves them blank rather than saying 0 B.
func TestMirrorBytesUnknownBeforeARun(t *testing.T) {
	t.Parallel()
	j := queue.Job{ID: 1, State: queue.Paused}
	f := queue.File{Name: "f.bin", Size: 100, Selected: true,
		Mirrors: []queue.Mirror{{URL: "http://a.example/f.bin", Priority: 1, Strikes: 2}}}
	fd := fileDetail(j, f, metalink.File{Name: "f.bin"})
	if len(fd.Mirrors) != 1 || fd.Mirrors[0].Bytes != -1 || fd.Mirrors[0].Strikes != 2 {
		t.Errorf("mirrors %+v: want bytes unknown (-1) and the stored strikes", fd.Mirrors)
	}
}
