package bridge

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"fyne.io/fyne/v2/lang"

	"braid/engine"
	"braid/engine/metalink"
	"braid/engine/piece"
	"braid/engine/torrent"
	"braid/queue"
	"braid/runner"
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

// Repair mends a job's files where they are, in the background, the way
// `braid repair` does (engine.Client.Repair): only the pieces that fail
// their hash are fetched again, each hashed before it is written over the
// bad one, and the file keeps its name throughout. The job shows as
// repairing meanwhile, then done with each file marked verified by the
// hash that proved it, or failed saying why (a file without piece hashes
// cannot be mended piece by piece). A file that is gone is fetched again
// whole by the runner.
func (b *Backend) Repair(id ui.JobID) error {
	return b.check(id, true)
}

func (b *Backend) check(id ui.JobID, repair bool) error {
	if id < 0 {
		return errSyncJob(id)
	}
	j, err := b.q.Get(int64(id))
	if err != nil {
		return err
	}
	switch j.State {
	case queue.Running, queue.Queued:
		return fmt.Errorf(lang.L("job %d is %s: pause it first"), id, j.State)
	}
	if repair && runner.IsTorrent(j) {
		// Its files are at their final names, which a torrent run never
		// writes over: nothing could fetch a bad piece into them.
		return errors.New(lang.L("A torrent cannot be mended in place; Verify says whether its pieces match."))
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
	l := newLive()
	l.job, l.state, l.checking = j, state, "starting"
	b.live[j.ID] = l
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

// runCheck verifies or repairs each selected file and records what it
// found.
func (b *Backend) runCheck(j queue.Job, repair bool) error {
	root, err := os.OpenRoot(j.Dest)
	if err != nil {
		return b.q.Fail(j.ID, fmt.Errorf(lang.L("verify: %w"), err))
	}
	defer root.Close()
	var bad []error
	refetch := false
	var spec *torrent.Spec // a torrent job's: its files are checked against its own pieces
	if runner.IsTorrent(j) {
		stored, ok, err := b.q.TorrentSpec(j.ID)
		if err != nil {
			return b.q.Fail(j.ID, fmt.Errorf(lang.L("verify: %w"), err))
		}
		if !ok {
			return b.q.Fail(j.ID, errors.New(lang.L("verify: the torrent was not kept with the job; add it again to check it")))
		}
		spec = stored
	}
	for _, f := range j.Files {
		if !f.Selected {
			continue
		}
		b.mu.Lock()
		if l := b.live[j.ID]; l != nil {
			l.checking, l.mended, l.bad = f.Name, 0, 0
		}
		b.mu.Unlock()
		mf := docFile(j.Doc, f.Name)
		if mf.Size < 0 && f.Size >= 0 {
			mf.Size = f.Size
		}
		// The bytes are at the file's path, which is not its name when
		// it was saved under a free one.
		disk := mf
		disk.Name = f.Path()
		var by string
		if spec != nil {
			by, err = b.verifyTorrentFile(j, spec, f.Name)
		} else if repair {
			by, err = b.repairFile(j, disk)
			if errors.Is(err, fs.ErrNotExist) {
				// Gone: nothing to mend, so the runner fetches it whole.
				if err := b.q.SetPieces(j.ID, f.Name, piece.NewBitfield(queue.LayoutOf(mf).Count())); err != nil {
					return b.q.Fail(j.ID, err)
				}
				refetch = true
				continue
			}
		} else {
			var bad []int
			by, bad, err = b.verifyFile(root, disk)
			b.mu.Lock()
			b.bad[fileKey{j.ID, f.Name}] = bad
			b.mu.Unlock()
			if len(bad) > 0 {
				if err := b.keepPieces(j.ID, f.Name, bad, false); err != nil {
					return b.q.Fail(j.ID, err)
				}
			}
		}
		if err != nil {
			if b.ctx.Err() != nil {
				return err
			}
			if errors.Is(err, engine.ErrHashMismatch) {
				if err := b.q.SetMismatch(j.ID, f.Name, true); err != nil {
					return err
				}
			}
			bad = append(bad, fmt.Errorf("%s: %w", f.Name, err))
			continue
		}
		b.mu.Lock()
		delete(b.bad, fileKey{j.ID, f.Name})
		b.mu.Unlock()
		if err := b.q.MarkVerified(j.ID, f.Name, by); err != nil {
			return err
		}
		if err := b.keepPieces(j.ID, f.Name, nil, true); err != nil {
			return err
		}
		if err := b.checkSignature(j.ID, root, mf, disk.Name); err != nil {
			bad = append(bad, fmt.Errorf("%s: %w", f.Name, err))
		}
	}
	switch {
	case len(bad) > 0:
		return b.q.Fail(j.ID, errors.Join(bad...))
	case refetch:
		return b.q.SetState(j.ID, queue.Queued)
	default:
		return b.q.Finish(j.ID)
	}
}

// verifyTorrentFile checks a file of torrent job j against the torrent's
// own piece hashes; pieces that fail are recorded not done, so the
// pieces map says which.
func (b *Backend) verifyTorrentFile(j queue.Job, spec *torrent.Spec, name string) (string, error) {
	c, err := torrent.Verify(b.ctx, j.Dest, spec, name)
	switch {
	case err != nil:
		return "", err
	case c.Missing:
		return "", fmt.Errorf(lang.L("%w: it is not in its folder"), fs.ErrNotExist)
	case len(c.Bad) > 0:
		if tp, err := b.q.TorrentPieces(j.Dest); err == nil {
			_ = tp.Set(spec.InfoHash.HexString(), c.Bad, false)
		}
		return "", fmt.Errorf(lang.L("%w (%d of %d pieces do not match the torrent's hashes)"), engine.ErrHashMismatch, len(c.Bad), c.Pieces)
	case !c.OK():
		return "", fmt.Errorf(lang.L("%w (none of its pieces could be checked: they share bytes with files not downloaded)"), engine.ErrHashMismatch)
	}
	return queue.ByTorrent, nil
}

// verifyFile checks a file at its name against every hash published for
// it, the whole-file hash too (as a repair of a good file does), and
// names the hash that proved it, as engine.RepairResult.VerifiedBy does;
// a file that does not match is engine.ErrHashMismatch, saying what is
// wrong, with the pieces known bad.
func (b *Backend) verifyFile(root *os.Root, mf metalink.File) (string, []int, error) {
	rep, err := piece.VerifyFileFull(b.ctx, root, mf, b.Workers)
	if err != nil {
		return "", nil, err
	}
	if !rep.OK() {
		return "", rep.Bad, fmt.Errorf("%w (%s)", engine.ErrHashMismatch, describe(rep))
	}
	return rep.VerifiedBy(), nil, nil
}

// repairFile mends one file in place with the engine's repair, showing
// how many of its bad pieces are mended so far, and names the hash that
// proves it afterwards. A file that cannot be mended is reported as a
// hash mismatch with the engine's reason.
func (b *Backend) repairFile(j queue.Job, mf metalink.File) (string, error) {
	b.mu.Lock()
	c := b.clientLocked()
	b.mu.Unlock()
	var locations []string
	if s, err := b.q.Settings(); err == nil {
		locations = s.Countries
	}
	res, err := c.Repair(b.ctx, j.Dest, mf, engine.RepairOptions{
		OriginETag: j.Origin.ETag,
		Referer:    j.Origin.Referer,
		Locations:  locations,
		Workers:    b.Workers,
		Progress: func(mended, bad int) {
			b.mu.Lock()
			if l := b.live[j.ID]; l != nil {
				l.mended, l.bad = mended, bad
			}
			b.mu.Unlock()
		},
	})
	switch {
	case err == nil:
		return res.VerifiedBy, nil
	case errors.Is(err, fs.ErrNotExist), b.ctx.Err() != nil:
		return "", err
	case res != nil && res.Before != nil && !res.Before.OK() && !errors.Is(err, engine.ErrHashMismatch):
		return "", fmt.Errorf("%w: %w", engine.ErrHashMismatch, err)
	}
	return "", err
}

// describe says what is wrong with a file in a few words.
func describe(r *piece.Report) string {
	switch {
	case r.Size == 0 && r.Expected > 0:
		return lang.L("missing")
	case len(r.Missing) > 0:
		return ui.CountL("%s pieces missing at the end", len(r.Missing))
	case len(r.Bad) > 0:
		return ui.CountL("%s bad pieces", len(r.Bad))
	case r.Trailing > 0:
		return ui.CountL("%s bytes too many", int(r.Trailing))
	}
	return fmt.Sprintf(lang.L("%s mismatch"), r.HashType)
}
