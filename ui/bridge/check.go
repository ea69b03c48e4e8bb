package bridge

import (
	"context"
	"errors"
	"fmt"
	"time"

	"fyne.io/fyne/v2/lang"

	"braid/queue"
	"braid/runner"
	"braid/ui"
)

// Verify and Repair are checks of the service (runner.Service.Check,
// whose table says what each does by kind of job); the window shows each
// as a live row of its own, verifying or repairing, and what it found of
// each file in the file's details. check_test.go and
// cmd/braid/verify_window_test.go test the table cell by cell.

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
	err := b.svc.Check(b.ctx, int64(id), repair)
	var no *runner.CheckRefused
	if !errors.As(err, &no) {
		return err
	}
	switch no.Why {
	case runner.RefusedSync:
		return errors.New(lang.L("a folder kept in sync is checked by Sync again, which compares each file with the source's list"))
	case runner.RefusedMember:
		return errors.New(lang.L("a file taken out of an archive is checked against the archive's CRC-32 as it lands; Verify and Repair check files against published hashes, and it has none"))
	case runner.RefusedRunning:
		return fmt.Errorf(lang.L("job %d is %s: pause it first"), id, no.State)
	case runner.RefusedChecking:
		return fmt.Errorf(lang.L("job %d is being checked already"), id)
	case runner.RefusedNoPieceHashes:
		return fmt.Errorf(lang.L("Repair needs piece hashes to find the bad bytes of %s, and only a whole-file hash (%s) was published for it: only a new download can replace it."), no.File, no.Hash)
	}
	return fmt.Errorf(lang.L("Repair needs a published hash to tell good bytes from bad, and none was published for %s: there is nothing to repair it against."), no.File)
}

// checked is what the runner tells of a check (observer.Check): a check
// is a live row of its own until it ends, and what it found of each file
// goes to the file's details.
func (b *Backend) checked(c runner.CheckEvent) {
	switch c.Kind {
	case runner.CheckProgressed:
		b.checking(c.Job, c.Repair, c.Progress)
	case runner.CheckFileDone:
		b.checkedFile(c.Job, c.Repair, c.File)
	case runner.CheckEnded:
		b.checkEnded(c.Job, c.Repair, c.Err)
	}
}

func (b *Backend) checking(id int64, repair bool, p runner.CheckProgress) {
	b.mu.Lock()
	l := b.live[id]
	if l == nil || l.checking == "" {
		// The check begins: a row of its own, and the notes of the last
		// one are old.
		j, ok := b.known[id]
		if !ok {
			j, _ = b.q.Get(id)
		}
		l = newLive()
		l.job, l.state = j, ui.Verifying
		if repair {
			l.state = ui.Repairing
		}
		b.live[id] = l
		for k := range b.notes {
			if k.job == id {
				delete(b.notes, k)
			}
		}
		delete(b.unrecorded, id)
		defer b.changed()
	}
	l.checking = cmpOr(p.File, "starting")
	l.mended, l.bad = p.Mended, p.Bad
	if p.Rebuilding != l.snap.Rebuilding {
		l.snap.Name, l.snap.Rebuilding = p.File, p.Rebuilding
		defer b.changed()
	}
	b.mu.Unlock()
}

func (b *Backend) checkedFile(id int64, repair bool, f runner.CheckedFile) {
	b.mu.Lock()
	defer b.mu.Unlock()
	k := fileKey{id, f.Name}
	switch {
	case f.Err != nil:
		if !repair {
			b.bad[k] = f.Bad
		}
		if l := b.live[id]; l != nil {
			l.found = true
		}
	case f.Nothing:
		delete(b.bad, k)
		b.noteLocked(id, f.Name, ui.CountL("not verified: nothing was published to check it against. Verify found it in its folder with its %s bytes, as its download left it.", int(f.Size)))
	default:
		delete(b.bad, k)
		if f.By != "" {
			b.noteLocked(id, f.Name, checkedNote(f.By, repair))
		}
	}
}

func (b *Backend) checkEnded(id int64, repair bool, err error) {
	b.mu.Lock()
	l := b.live[id]
	delete(b.live, id)
	if err != nil && !errors.Is(err, context.Canceled) {
		// The queue could not take what the check found (locked past its
		// wait, the disk full): the job shows its state from before, and
		// its row says that this check did not count.
		if b.unrecorded == nil {
			b.unrecorded = map[int64]string{}
		}
		who := lang.L("Verify")
		if repair {
			who = lang.L("Repair")
		}
		cause := err.Error()
		if errors.Is(err, queue.ErrLocked) {
			cause = lang.L("another program held the queue's database")
		}
		b.unrecorded[id] = fmt.Sprintf(lang.L("%s could not record what it found (%s); try it again"), who, cause)
	}
	b.mu.Unlock()
	if l != nil && l.found {
		// A torrent's seeding stopped: the last reading of its swarm is
		// old (no other job has one).
		b.tor.mu.Lock()
		delete(b.tor.last, id)
		b.tor.mu.Unlock()
	}
	b.changed()
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
