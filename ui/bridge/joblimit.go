package bridge

import (
	"errors"

	"fyne.io/fyne/v2/lang"

	"braid/queue"
	"braid/ui"
)

// limitOf is job j's own limit as the window shows it: the one its run
// holds now, which follows a change from anywhere within a poll, else the
// queue's record of it.
func (b *Backend) limitOf(j queue.Job) int64 {
	if bps, running := b.runner.JobLimit(j.ID); running {
		return bps
	}
	return j.Limit
}

var _ ui.JobLimiter = (*Backend)(nil)

// SetJobLimit implements ui.JobLimiter: job id's own download limit
// (bytes per second, 0: none) is kept in the queue and reaches the job's
// running downloads, HTTP, FTP or BitTorrent, at once (runner's
// SetJobLimit), without restarting them. The row shows it at once.
func (b *Backend) SetJobLimit(id ui.JobID, bytesPerSec int64) error {
	if b.isSync(id) {
		return errors.New(lang.L("a folder kept in sync has no speed limit of its own"))
	}
	if err := b.runner.SetJobLimit(int64(id), bytesPerSec); err != nil {
		return err
	}
	b.mu.Lock()
	if j, ok := b.known[int64(id)]; ok {
		j.Limit = bytesPerSec
		b.known[int64(id)] = j
	}
	if l := b.live[int64(id)]; l != nil {
		l.job.Limit = bytesPerSec
	}
	b.mu.Unlock()
	b.changed()
	return nil
}
