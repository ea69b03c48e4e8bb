package bridge

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"fyne.io/fyne/v2/lang"

	"braid/engine"
	"braid/engine/metalink"
	"braid/engine/piece"
	"braid/engine/rootfile"
	"braid/engine/torrent"
	"braid/queue"
	"braid/runner"
	"braid/ui"
)

// What Verify and Repair do, by kind of job: the one table, tested cell
// by cell through the real window (cmd/braid/verify_window_test.go) and
// here (check_test.go). "Corrupted" is a file whose bytes changed at its
// size; a file that is gone or changed size is told apart by its size
// whatever was published.
//
//	kind                          Verify: good file              Verify: corrupted              Repair: good          Repair: corrupted
//	plain URL, no hash published  done, not verified: nothing    done, not verified: nothing    not offered: nothing  not offered: nothing
//	  (or a metalink without any)   to check against; present      to check against; present      to tell good bytes    to tell good bytes
//	                                with its size                  with its size                  from bad              from bad
//	plain URL with a hash (its    done, verified (sha-256)       failed, checksum mismatch      not offered: no piece not offered: no piece
//	  server's Digest) or a                                                                     hashes to find the    hashes to find the
//	  metalink with a whole-file                                                                bad bytes (a new      bad bytes (a new
//	  hash only                                                                                 download replaces it) download replaces it)
//	metalink with piece hashes    done, verified (sha-256)       failed, checksum mismatch:     done, verified;       fetches only the bad
//	                                                               N bad pieces                   nothing fetched       pieces; done, verified
//	torrent, done or seeding      done (seeding on), verified    failed, N of M pieces do not   done, verified;       fetches the bad pieces
//	                                (BitTorrent piece hashes)      match; seeding stops           nothing fetched       again from the swarm
//	sync                          not offered: Sync again checks each file against the source's list and fetches what differs
//
// Verify and Repair never touch a job that runs or waits to run; Verify
// runs beside a torrent's seeding.

// Verify checks a job's files at their final names against their piece
// and whole-file hashes, in the background. The job shows as verifying
// meanwhile; afterwards it is done when every file verified, or failed
// with a hash mismatch naming the bad files, each flagged in the queue
// (queue.File.Mismatch) until it verifies again. A file nothing was
// published for is not called bad: Verify says it has nothing to check it
// against and that it is in its folder at its size, and the job stays
// done. A seeding torrent is checked against its piece hashes as it seeds;
// one with bad pieces stops seeding them.
func (b *Backend) Verify(id ui.JobID) error {
	return b.check(id, false)
}

// Repair mends a job's files where they are, in the background, the way
// `braid repair` does (engine.Client.Repair): only the pieces that fail
// their hash are fetched again, each hashed before it is written over the
// bad one, and the file keeps its name throughout. A torrent's bad pieces
// are fetched again by its next run, from the swarm. The job shows as
// repairing meanwhile, then done with each file marked verified by the
// hash that proved it, or failed saying why. A job whose files have no
// piece hashes is refused before anything changes, saying why (nothing
// published, or only a whole-file hash, which cannot find the bad bytes).
// A file that is gone is fetched again whole by the runner.
func (b *Backend) Repair(id ui.JobID) error {
	return b.check(id, true)
}

func (b *Backend) check(id ui.JobID, repair bool) error {
	j, err := b.q.Get(int64(id))
	if err != nil {
		return err
	}
	if j.Sync {
		return errors.New(lang.L("a folder kept in sync is checked by Sync again, which compares each file with the source's list"))
	}
	if j.Member != nil {
		return errors.New(lang.L("a file taken out of an archive is checked against the archive's CRC-32 as it lands; Verify and Repair check files against published hashes, and it has none"))
	}
	torrentJob := runner.IsTorrent(j)
	switch j.State {
	case queue.Running, queue.Queued:
		if repair || !torrentJob || !b.seeding(j.ID) {
			return fmt.Errorf(lang.L("job %d is %s: pause it first"), id, j.State)
		}
	}
	if repair && !torrentJob {
		if err := repairable(j); err != nil {
			return err
		}
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
	for k := range b.notes {
		if k.job == j.ID {
			delete(b.notes, k)
		}
	}
	b.mu.Unlock()
	b.changed()
	b.wg.Add(1)
	go func() {
		defer b.wg.Done()
		var err error
		if torrentJob {
			err = b.runTorrentCheck(j, repair)
		} else {
			err = b.runCheck(j, repair)
		}
		b.mu.Lock()
		delete(b.live, j.ID)
		b.mu.Unlock()
		b.changed()
		if err == nil && repair {
			b.svc.Wake()
		}
	}()
	return nil
}

// seeding reports whether job id's torrent seeds now.
func (b *Backend) seeding(id int64) bool {
	b.mu.Lock()
	r := b.runner
	l := b.live[id]
	b.mu.Unlock()
	if l != nil && l.state == ui.Seeding {
		return true
	}
	if r == nil {
		return false
	}
	for _, s := range r.Seeding() {
		if s == id {
			return true
		}
	}
	return false
}

// hasNothing reports whether nothing Braid can compute was published for
// f: no whole-file hash and no piece hashes.
func hasNothing(f metalink.File) bool {
	_, whole := piece.Strongest(f.Hashes)
	return !whole && !piece.PlanFor(f).Verifiable()
}

// repairable says why the files of job j, not a torrent, cannot be
// mended piece by piece, or nil: each file on disk needs piece hashes to
// find its bad bytes. A file that is gone needs none (the runner fetches
// it again whole).
func repairable(j queue.Job) error {
	for _, f := range j.Files {
		if !f.Selected {
			continue
		}
		mf := docFile(j.Doc, f.Name)
		if piece.PlanFor(mf).Verifiable() {
			continue
		}
		if _, err := os.Stat(filepath.Join(j.Dest, filepath.FromSlash(f.Path()))); errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if h, ok := piece.Strongest(mf.Hashes); ok {
			return fmt.Errorf(lang.L("Repair needs piece hashes to find the bad bytes of %s, and only a whole-file hash (%s) was published for it: only a new download can replace it."), f.Name, h.Type)
		}
		return fmt.Errorf(lang.L("Repair needs a published hash to tell good bytes from bad, and none was published for %s: there is nothing to repair it against."), f.Name)
	}
	return nil
}

// noteLocked records what a check found of a file that its outcome alone
// would not say, for the details (FileDetail.Verification) until the
// job's next check.
func (b *Backend) noteLocked(id int64, name, note string) {
	if b.notes == nil {
		b.notes = map[fileKey]string{}
	}
	b.notes[fileKey{id, name}] = note
}

// checkedNote says that a check this session proved a file, by which
// hash and when: what the window shows once Verify or Repair ends on a
// good file, which the outcome alone would say already before the check.
func checkedNote(by string, repair bool) string {
	who := lang.L("Verify")
	if repair {
		who = lang.L("Repair")
	}
	return fmt.Sprintf(lang.L("%s; %s checked it again at %s"), verifiedText(queue.ProofWords(by)), who, time.Now().Format("15:04"))
}

// checkNote puts what this session's last check found of a file in its
// details, when it found more than the outcome says, while the job
// (state) is where the check left it: done, seeding, or failed.
func (b *Backend) checkNote(fd *ui.FileDetail, id int64, state ui.JobState) {
	switch state {
	case ui.Done, ui.Seeding, ui.Failed:
	default:
		return // in hand again: the note is about what it was
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if n, ok := b.notes[fileKey{id, fd.Name}]; ok {
		fd.Verification = n
	}
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
		switch {
		case hasNothing(mf) && !repair:
			err = b.nothingToCheck(j.ID, root, f)
		case repair:
			by, err = b.repairFile(j, disk)
			if errors.Is(err, fs.ErrNotExist) {
				// Gone: nothing to mend, so the runner fetches it whole.
				if err := b.q.SetPieces(j.ID, f.Name, piece.NewBitfield(queue.LayoutOf(mf).Count())); err != nil {
					return b.q.Fail(j.ID, err)
				}
				refetch = true
				continue
			}
		default:
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
				if err := b.q.SetFile(j.ID, f.Name, queue.Mismatched); err != nil {
					return err
				}
			}
			bad = append(bad, fmt.Errorf("%s: %w", f.Name, err))
			continue
		}
		b.mu.Lock()
		delete(b.bad, fileKey{j.ID, f.Name})
		b.mu.Unlock()
		if err := b.q.SetFile(j.ID, f.Name, queue.VerifiedBy(by)); err != nil {
			return err
		}
		if by != "" {
			b.mu.Lock()
			b.noteLocked(j.ID, f.Name, checkedNote(by, repair))
			b.mu.Unlock()
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

// nothingToCheck is Verify for a file nothing was published for: all it
// can tell is whether the file is in its folder at the size its download
// left, and it says so in the file's details. It never calls the file's
// bytes bad.
func (b *Backend) nothingToCheck(id int64, root *os.Root, f queue.File) error {
	st, err := root.Stat(filepath.FromSlash(f.Path()))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf(lang.L("%w: it is not in its folder"), fs.ErrNotExist)
	case err != nil:
		return err
	case f.Size >= 0 && st.Size() != f.Size:
		return errors.New(ui.CountL("it is %s bytes, not the size its download left, and no hash was published to say more", int(st.Size())))
	}
	b.mu.Lock()
	b.noteLocked(id, f.Name, ui.CountL("not verified: nothing was published to check it against. Verify found it in its folder with its %s bytes, as its download left it.", int(st.Size())))
	b.mu.Unlock()
	return nil
}

// runTorrentCheck verifies a torrent job's files against the torrent's
// own piece hashes, beside its seeding. A repair marks the bad pieces not
// done, gives their files back their .part names (the torrent's storage
// writes only there) and queues the job, whose run fetches those pieces
// again from the swarm; a good torrent is left as it is.
// heldFileWait is how long a repair waits for another program to close a
// file it must rename.
const heldFileWait = 30 * time.Second

func (b *Backend) runTorrentCheck(j queue.Job, repair bool) error {
	spec, ok, err := b.q.TorrentSpec(j.ID)
	if err != nil {
		return b.q.Fail(j.ID, fmt.Errorf(lang.L("verify: %w"), err))
	}
	if !ok {
		return b.q.Fail(j.ID, errors.New(lang.L("verify: the torrent was not kept with the job; add it again to check it")))
	}
	var bad []error
	var mend []string // files with bad pieces, for a repair
	for _, f := range j.Files {
		if !f.Selected {
			continue
		}
		b.mu.Lock()
		if l := b.live[j.ID]; l != nil {
			l.checking = f.Name
		}
		b.mu.Unlock()
		by, err := b.verifyTorrentFile(j, spec, f.Name)
		if err != nil {
			if b.ctx.Err() != nil {
				return err
			}
			if errors.Is(err, engine.ErrHashMismatch) {
				if err := b.q.SetFile(j.ID, f.Name, queue.Mismatched); err != nil {
					return err
				}
				mend = append(mend, f.Name)
			}
			bad = append(bad, fmt.Errorf("%s: %w", f.Name, err))
			continue
		}
		if err := b.q.SetFile(j.ID, f.Name, queue.VerifiedBy(by)); err != nil {
			return err
		}
		b.mu.Lock()
		b.noteLocked(j.ID, f.Name, checkedNote(by, repair))
		b.mu.Unlock()
	}
	if len(bad) == 0 {
		return b.q.Finish(j.ID)
	}
	// Peers must not be sent the pieces found bad.
	b.stopSeeding(j.ID)
	if !repair || len(mend) < len(bad) {
		return b.q.Fail(j.ID, errors.Join(bad...))
	}
	root, err := os.OpenRoot(j.Dest)
	if err != nil {
		return b.q.Fail(j.ID, fmt.Errorf(lang.L("verify: %w"), err))
	}
	defer root.Close()
	// On Windows a file another program holds (a virus scanner reading
	// the file just checked) cannot be renamed: wait a while for it.
	ctx, cancel := context.WithTimeout(b.ctx, heldFileWait)
	defer cancel()
	for _, name := range mend {
		p := filepath.FromSlash(name)
		if err := rootfile.Retry(ctx, func() error { return root.Rename(p, p+".part") }, nil); err != nil {
			return b.q.Fail(j.ID, errors.Join(append(bad, err)...))
		}
	}
	return b.q.SetState(j.ID, queue.Queued)
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
		keepCheckedBytes(b.q, j.ID, spec, name, c.Bad) // torrentkept.go
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
	c := b.svc.Client()
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
		// Mirrors first, then the parity set the job's document lists.
		Parity: runner.ParityOf(j.Doc, mf.Name).Mender(c, nil, 0, j.Dest),
		Rebuilding: func(n int) {
			b.mu.Lock()
			if l := b.live[j.ID]; l != nil {
				l.snap.Name, l.snap.Rebuilding = mf.Name, n
			}
			b.mu.Unlock()
			b.changed()
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
