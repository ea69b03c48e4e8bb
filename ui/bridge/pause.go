package bridge

import (
	"time"

	"braid/ui"
)

// letGoWait bounds how long a paused job's live view waits for the
// runner to let go of it; the runner's guard takes about a second.
const letGoWait = 5 * time.Second

// letGo forgets a paused job's live view once the runner has let go of
// its downloads. Until then (about a second) the row shows the bytes
// still arriving; then it shows the queue's record, whose journal holds
// every piece the run finished by then. So a pause never shows less than
// the download had (it showed what the journal had at the click, 0 % for
// a download paused in its first second), and the bytes kept are what the
// row says.
func (b *Backend) letGo(id ui.JobID) {
	if len(b.runner.LiveAll(int64(id))) == 0 {
		b.forget(id)
		return
	}
	b.wg.Add(1)
	go func() {
		defer b.wg.Done()
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		end := time.After(letGoWait)
	wait:
		for len(b.runner.LiveAll(int64(id))) > 0 {
			select {
			case <-b.ctx.Done():
				break wait
			case <-end:
				break wait
			case <-t.C:
			}
		}
		b.forget(id)
		b.changed()
	}()
}
