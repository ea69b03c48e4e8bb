package bridge

import (
	"errors"

	"fyne.io/fyne/v2/lang"

	"braid/queue"
	"braid/ui"
)

var _ ui.InOrderer = (*Backend)(nil)

// InOrder implements ui.InOrderer: whether the queue keeps job id as one
// that downloads in order; false when it cannot tell.
func (b *Backend) InOrder(id ui.JobID) bool {
	on, err := b.q.InOrder(int64(id))
	return err == nil && on
}

// SetInOrder implements ui.InOrderer: the queue keeps the choice, and the
// runner gives it to the job's next file (runner/inorder.go).
func (b *Backend) SetInOrder(id ui.JobID, on bool) error {
	if b.isSync(id) {
		return errors.New(lang.L("a folder kept in sync is not downloaded in order"))
	}
	return b.q.SetJob(int64(id), queue.InOrder(on))
}
