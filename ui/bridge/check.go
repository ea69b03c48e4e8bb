package bridge

import (
	"errors"
	"fmt"
	"fyne.io/fyne/v2/lang"
	"os"
	"path/filepath"

	"braid/engine"
	"braid/engine/metalink"
	"braid/engine/piece"
	"braid/queue"
	"braid/ui"
)

// Verify checks a job's files at their final names against their piece
// and whole-file hashes, in the background. The job shows as verifying
// meanwhile; afterwards it is done when every file verified, or failed
// with a hash mismatch naming the bad files, each flagged in the queue
// (queue.File.Mismatch) until it verifies again.
func (b *Backend) Verify(id ui.JobID) error {
	return b.check(id, false)
}

// Repair verifies a job's files and fetches again only the pieces that
// fail: each damaged file goes back to NAME.part with the good pieces
// recorded as done, and the job is queued for the runner, which resumes it
// like any interrupted download. A file without piece hashes can only be
// fetched again whole.
func (b *Backend) Repair(id ui.JobID) error {
	return b.check(id, true)
}

func (b *Backend) check(id ui.JobID, repair bool) error {
	j, err := b.q.Get(int64(id))
	if err != nil {
		return err
	}
	switch j.State {
	case queue.Running, queue.Queued:
		return fmt.Errorf(lang.L("job %d is %s: pause it first"), id, j.State)
	}
	b.mu.Lock()
	if l := b.live[j.ID]; l != nil && l.checking != "" {
		b.mu.Unlock()
		return fmt.Errorf(lang.L("job %d is being checked already"), id)
	}
	state := ui.Verifying
	if repair {
		state = ui.Repairing
	}
	b.live[j.ID] = &live{job: j, state: state, checking: "starting", fileBytes: map[string]int64{}}
	b.mu.Unlock()
	b.changed()
	b.wg.Add(1)
	go func() {
		defer b.wg.Done()
		err := b.runCheck(j, repair)
		b.mu.Lock()
		delete(b.live, j.ID)
		b.mu.Unlock()
		b.changed()
		if err == nil && repair {
			b.poke()
		}
	}()
	return nil
}

// runCheck verifies each selected file and records what it found; with
// repair it prepares the damaged files for the runner.
func (b *Backend) runCheck(j queue.Job, repair bool) error {
	root, err := os.OpenRoot(j.Dest)
	if err != nil {
		return b.q.Fail(j.ID, fmt.Errorf(lang.L("verify: %w"), err))
	}
	defer root.Close()
	var bad []error
	damaged := 0
	for _, f := range j.Files {
		if !f.Selected {
			continue
		}
		b.mu.Lock()
		if l := b.live[j.ID]; l != nil {
			l.checking = f.Name
		}
		b.mu.Unlock()
		mf := docFile(j.Doc, f.Name)
		if mf.Size < 0 && f.Size >= 0 {
			mf.Size = f.Size
		}
		rep, err := piece.VerifyFile(b.ctx, root, mf, b.Workers)
		if err != nil {
			if b.ctx.Err() != nil {
				return err
			}
			bad = append(bad, fmt.Errorf("%s: %w", f.Name, err))
			continue
		}
		if rep.OK() {
			if err := b.q.SetVerified(j.ID, f.Name, true); err != nil {
				return err
			}
			continue
		}
		damaged++
		if err := b.q.SetMismatch(j.ID, f.Name, true); err != nil {
			return err
		}
		bad = append(bad, fmt.Errorf("%s: %w (%s)", f.Name, engine.ErrHashMismatch, describe(rep)))
		if repair {
			if err := b.prepareRepair(j, f, mf, root, rep); err != nil {
				return b.q.Fail(j.ID, err)
			}
		}
	}
	switch {
	case repair && damaged > 0:
		return b.q.SetState(j.ID, queue.Queued)
	case len(bad) > 0:
		return b.q.Fail(j.ID, errors.Join(bad...))
	default:
		return b.q.Finish(j.ID)
	}
}

// describe says what is wrong with a file in a few words.
func describe(r *piece.Report) string {
	switch {
	case r.Size == 0 && r.Expected > 0:
		return lang.L("missing")
	case len(r.Missing) > 0:
		return fmt.Sprintf(lang.L("%d pieces missing at the end"), len(r.Missing))
	case len(r.Bad) > 0:
		return fmt.Sprintf(lang.L("%d bad pieces"), len(r.Bad))
	case r.Trailing > 0:
		return fmt.Sprintf(lang.L("%d bytes too many"), r.Trailing)
	}
	return fmt.Sprintf(lang.L("%s mismatch"), r.HashType)
}

// prepareRepair turns a damaged file back into a download in progress:
// NAME becomes NAME.part and the queue records its good pieces, so the
// runner fetches only the rest. Without piece hashes no piece can be
// vouched for, and the whole file is fetched again.
func (b *Backend) prepareRepair(j queue.Job, f queue.File, mf metalink.File, root *os.Root, rep *piece.Report) error {
	name := filepath.FromSlash(f.Name)
	if _, err := root.Stat(name); err == nil {
		if err := root.Rename(name, name+".part"); err != nil {
			return fmt.Errorf(lang.L("repair %s: %w"), f.Name, err)
		}
	}
	good := rep.Good
	if good == nil || rep.Layout.Count() != queue.LayoutOf(mf).Count() {
		good = piece.NewBitfield(queue.LayoutOf(mf).Count())
	}
	if err := b.q.SetPieces(j.ID, f.Name, good); err != nil {
		return fmt.Errorf(lang.L("repair %s: %w"), f.Name, err)
	}
	return nil
}
