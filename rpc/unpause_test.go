package rpc

import (
	"testing"

	"braid/engine/mirrortest"
)

// Once aria2.pause has answered and tellStatus says paused, aria2.unpause
// at once is accepted, as aria2 accepts it; and a pause right after an
// unpause is too, round after round while the runner claims the job
// again. A pause that came right after the runner claimed the job, before
// its run was noted, let go of nothing: tellStatus said paused, then the
// run started its download, the job showed active again and unpause
// answered "cannot be unpaused now" (runner's TestLetGoRightAfterClaim
// forces that moment).
func TestUnpauseRightAfterPause(t *testing.T) {
	t.Parallel()
	rounds := 200
	if testing.Short() {
		rounds = 40
	}
	b := newDaemon(t, Options{Rate: 1e6}) // three calls a round, as fast as they answer
	m := mirrortest.New(t, mirrortest.Bytes(64<<20, 5), mirrortest.Rate(1<<20))
	gid := b.call(t, "aria2.addUri", []string{m.URL()}).(string)
	b.waitFor(t, gid, "the first bytes", func(st map[string]any) bool {
		return number(t, st, "completedLength") > 0
	})
	for i := range rounds {
		if res := b.call(t, "aria2.pause", gid); res != gid {
			t.Fatalf("round %d: aria2.pause answered %v", i, res)
		}
		st := b.call(t, "aria2.tellStatus", gid, []string{"status"}).(map[string]any)
		if st["status"] != "paused" {
			t.Fatalf("round %d: after aria2.pause answered, tellStatus says %v", i, st)
		}
		if res := b.call(t, "aria2.unpause", gid); res != gid {
			t.Fatalf("round %d: aria2.unpause answered %v", i, res)
		}
	}
	// The last unpause holds: the download goes on.
	at := number(t, b.call(t, "aria2.tellStatus", gid, []string{"completedLength"}).(map[string]any), "completedLength")
	b.waitFor(t, gid, "more bytes after the last unpause", func(st map[string]any) bool {
		return number(t, st, "completedLength") > at
	})
}
