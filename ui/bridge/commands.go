package bridge

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"

	"fyne.io/fyne/v2/lang"

	"braid/queue"
	"braid/runner"
	"braid/ui"
)

// Add puts the picked files in the queue (runner.Add) and wakes the
// runner. A document Open read from a plain URL is stored with what the
// URL's server said (its ETag, the Referer), so every run of the job
// sends them; one read with a login gives the job the login; a torrent
// goes with its job, so no run reads the source again. A torrent that a
// job of the queue has already is not added again: the error is a
// *ui.InQueueError naming that job.
func (b *Backend) Add(ctx context.Context, req ui.AddRequest) (ui.JobID, error) {
	if req.Doc == nil {
		return 0, fmt.Errorf(lang.L("add %s: nothing was read from it"), queue.Redact(req.Source))
	}
	if err := os.MkdirAll(req.Dir, 0o755); err != nil {
		return 0, fmt.Errorf(lang.L("add %s: destination: %w"), queue.Redact(req.Source), err)
	}
	b.mu.Lock()
	syncSource, isSync := b.syncDocs[req.Doc]
	b.mu.Unlock()
	if isSync {
		return b.addSync(syncSource, req.Dir)
	}
	return b.add(ctx, req, nil)
}

// add is Add of a document that is not a sync's, into a folder that
// exists; unread, when not nil, is why its source could not be read
// (AddUnread).
func (b *Backend) add(ctx context.Context, req ui.AddRequest, unread error) (ui.JobID, error) {
	b.mu.Lock()
	origin := b.origins[req.Doc]
	b.mu.Unlock()
	if len(req.Members) > 0 {
		return b.addMembers(ctx, req, origin) // members.go
	}
	spec, _ := b.peekSpec(req.Doc) // members.go
	added, err := runner.Add(ctx, b.q, req.Source, runner.AddOptions{
		Dir: req.Dir, Sort: true, // a category's folder (organise.go)
		Doc: req.Doc, Origin: origin, Spec: spec, Files: req.Files,
		Login: b.takeLogin(req.Doc), Paused: req.Paused, Again: runner.FindTorrent, Unread: unread,
	})
	switch {
	case err != nil:
		return 0, err
	case added.Found:
		return 0, &ui.InQueueError{ID: ui.JobID(added.ID)}
	}
	b.takeSpec(req.Doc) // torrent.go: it went with the job
	if added.Queued {
		b.svc.Wake()
	}
	return ui.JobID(added.ID), nil
}

// Pause stops a job; the runner lets go of it within about a second.
func (b *Backend) Pause(id ui.JobID) error {
	if slices.Contains(b.runner.Seeding(), int64(id)) {
		// A done torrent that seeds: pausing it stops the seeding, and
		// Resume seeds it again.
		// Paused first, so no reading between the two shows it seeding
		// with nothing left to seed.
		err := b.setSeedPaused(int64(id), true)
		b.stopSeeding(int64(id))
		b.changed()
		return err
	}
	if err := b.q.Pause(int64(id), ""); err != nil {
		return err
	}
	b.letGo(id)
	return nil
}

// StopSeeding ends a done torrent's seeding for good: it stays done.
func (b *Backend) StopSeeding(id ui.JobID) error {
	b.stopSeeding(int64(id))
	err := b.setSeedPaused(int64(id), false)
	b.changed()
	return err
}

// Resume queues a paused or failed job and wakes the runner.
func (b *Backend) Resume(id ui.JobID) error {
	if b.isSync(id) { // a row the window shows: the list it read knows its kind
		return b.SyncAgain(id)
	}
	b.mu.Lock()
	seed := b.seedPaused[int64(id)]
	for k := range b.bad {
		if k.job == int64(id) {
			delete(b.bad, k) // fetched again: the last Verify's word is old
		}
	}
	b.mu.Unlock()
	if seed {
		// Its torrent is added again over the files it has, which it
		// checks, and seeds: as braid queue resume does it.
		if ok, err := b.q.ResumeSeeding(int64(id)); err != nil {
			return err
		} else if !ok {
			// Not recorded done yet by the run that fetched it.
			if err := b.q.SetState(int64(id), queue.Queued); err != nil {
				return err
			}
		}
		if err := b.setSeedPaused(int64(id), false); err != nil {
			return err
		}
	} else if err := b.q.Resume(int64(id)); err != nil {
		return err
	}
	b.mu.Lock()
	delete(b.stopped, int64(id))
	b.mu.Unlock()
	b.svc.Wake()
	return nil
}

// Remove takes a job out of the queue; its files stay on disk.
func (b *Backend) Remove(id ui.JobID) error {
	if err := b.q.Remove(int64(id)); err != nil {
		return err
	}
	b.forget(id)
	b.stopSeeding(int64(id))
	b.changed()
	return nil
}

// RemoveMany removes the jobs ids as Remove does each, the queue's in one
// transaction (see ui.ManyRemover).
func (b *Backend) RemoveMany(ids []ui.JobID) error {
	var errs []error
	var queued []int64
	for _, id := range ids {
		queued = append(queued, int64(id))
	}
	if len(queued) > 0 {
		errs = append(errs, b.q.Remove(queued...))
	}
	for _, id := range queued {
		b.forget(ui.JobID(id))
		b.stopSeeding(id)
	}
	b.changed()
	return errors.Join(errs...)
}

// forget drops a job's live progress; a late progress call for it (the
// runner's last word as it lets go) is ignored.
func (b *Backend) forget(id ui.JobID) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if l := b.live[int64(id)]; l != nil && l.checking == "" {
		delete(b.live, int64(id))
	}
	b.stopped[int64(id)] = true
}

// Move puts a job at index in the queue order.
func (b *Backend) Move(id ui.JobID, index int) error {
	return b.q.Move(int64(id), queue.At(index))
}
