package bridge

import (
	"context"
	"time"

	"braid/ui"
)

// letGoWait bounds how long a paused job's live view waits for the
// runner to let go of it: milliseconds, or a piece's write on a slow disk.
const letGoWait = 5 * time.Second

// letGo forgets a paused job's live view once the runner has let go of
// it. runner.LetGo makes the job's run look at the queue now rather than
// at its next look a second later, and returns once the run has ended, as
// the RPC's pause does. Until then the row shows the bytes still
// arriving; then it shows the queue's record, whose journal holds every
// piece the run finished by then. So "Paused" never shows while bytes
// still arrive, a pause never shows less than the download had, and the
// bytes kept are what the row says. The wait is in the background: the
// window's thread never waits for a disk.
func (b *Backend) letGo(id ui.JobID) {
	b.wg.Add(1)
	go func() {
		defer b.wg.Done()
		ctx, cancel := context.WithTimeout(b.ctx, letGoWait)
		defer cancel()
		// A run that takes longer than letGoWait is shown paused all the
		// same, as before: its guard stops it at its next look.
		_ = b.runner.LetGo(ctx, int64(id))
		b.forget(id)
		b.changed()
	}()
}
