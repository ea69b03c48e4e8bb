package runner

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"braid/engine"
	"braid/engine/metalink"
	"braid/engine/piece"
	"braid/engine/rootfile"
	"braid/engine/torrent"
	"braid/queue"
	"braid/units"
)

// What a check (Service.Check) does, by kind of job; "corrupted" is a
// file whose bytes changed at its size, and a file that is gone or
// changed size is told apart by its size whatever was published.
//
//	kind                          Verify: good file              Verify: corrupted              Repair: good          Repair: corrupted
//	plain URL, no hash published  done, not verified: nothing    done, not verified: nothing    refused: nothing to   refused: nothing to
//	  (or a metalink without any)   to check against; present      to check against; present      tell good bytes       tell good bytes
//	                                with its size                  with its size                  from bad              from bad
//	plain URL with a hash (its    done, verified (sha-256)       failed, checksum mismatch      refused: no piece     refused: no piece
//	  server's Digest) or a                                                                     hashes to find the    hashes to find the
//	  metalink with a whole-file                                                                bad bytes (a new      bad bytes (a new
//	  hash only                                                                                 download replaces it) download replaces it)
//	metalink with piece hashes    done, verified (sha-256)       failed, checksum mismatch:     done, verified;       fetches only the bad
//	                                                               N bad pieces                   nothing fetched       pieces; done, verified
//	torrent, done or seeding      done (seeding on), verified    failed, N of M pieces do not   done, verified;       queued: its run fetches
//	                                (BitTorrent piece hashes)      match; seeding stops           nothing fetched       the bad pieces again
//	sync, archive member          refused: Sync again checks a folder; a member is checked against its archive's CRC-32 as it lands
//
// A check never touches a job that runs or waits to run; Verify runs
// beside a torrent's seeding.

// CheckEvent is what a check (Service.Check) tells the Observer, from
// the check's goroutine.
type CheckEvent struct {
	Job    int64
	Repair bool
	Kind   CheckEventKind
	// Progress is how far the check is, for CheckProgressed (the first
	// event, told before Service.Check returns, has no file yet).
	Progress CheckProgress
	// File is what the check found of one file, for CheckFileDone: told
	// before the job's outcome is recorded in the queue.
	File CheckedFile
	// Err, for CheckEnded, is what kept the check from recording the
	// job's outcome (its context ended, the queue failed).
	Err error
}

// CheckEventKind says what a CheckEvent tells.
type CheckEventKind int

// The kinds of CheckEvent.
const (
	CheckProgressed CheckEventKind = iota // Progress
	CheckFileDone                         // File
	CheckEnded                            // the check is over, its outcome in the queue (or Err)
)

// checkTell tells a check's events to an Observer.
type checkTell struct {
	o      Observer
	job    int64
	repair bool
}

func (t checkTell) progress(p CheckProgress) {
	t.o.Check(CheckEvent{Job: t.job, Repair: t.repair, Kind: CheckProgressed, Progress: p})
}

func (t checkTell) checked(f CheckedFile) {
	t.o.Check(CheckEvent{Job: t.job, Repair: t.repair, Kind: CheckFileDone, File: f})
}

// wrong tells of file got, which is not right (got.Err), and records it:
// a hash mismatch is marked in the queue (queue.Mismatched), and the
// file's failure, named, joins the job's (bad).
func (t checkTell) wrong(q *queue.Queue, got CheckedFile, bad *[]error) error {
	if errors.Is(got.Err, engine.ErrHashMismatch) {
		if err := q.SetFile(t.job, got.Name, queue.Mismatched); err != nil {
			return err
		}
	}
	t.checked(got)
	*bad = append(*bad, fmt.Errorf("%s: %w", got.Name, got.Err))
	return nil
}

// CheckProgress is how far a check is.
type CheckProgress struct {
	File string // the file it reads; "" before the first
	// Mended of Bad pieces are fetched again so far, in a repair.
	Mended, Bad int
	// Rebuilding is how many pieces are being rebuilt from parity now.
	Rebuilding int
}

// CheckedFile is what a check found of one file.
type CheckedFile struct {
	Name string
	// By is the hash that proved it; "" when it was not proved.
	By string
	// Nothing: nothing was published to check it against, and it is in
	// its folder at Size bytes, as its download left it.
	Nothing bool
	Size    int64
	// Bad are the pieces Verify found bad in it.
	Bad []int
	// Err is why it is not right (engine.ErrHashMismatch, fs.ErrNotExist
	// and the like); nil when it is.
	Err error
}

// Refusal is why a job cannot be checked.
type Refusal int

// The refusals of Service.Check.
const (
	RefusedSync          Refusal = iota + 1 // a sync job: Sync again checks its folder
	RefusedMember                           // an archive's member: it has no published hash
	RefusedRunning                          // the job runs or waits to run
	RefusedChecking                         // a check of the job is under way
	RefusedNoPieceHashes                    // Repair: File has only a whole-file hash (Hash)
	RefusedNoHash                           // Repair: nothing was published for File
)

// CheckRefused is why Service.Check refuses a job, before anything
// changes; a face says it in its own words from these facts.
type CheckRefused struct {
	Job   int64
	Why   Refusal
	State queue.State // RefusedRunning: the job's state
	File  string      // RefusedNoPieceHashes, RefusedNoHash
	Hash  string      // RefusedNoPieceHashes: the whole-file hash's type
}

func (e *CheckRefused) Error() string {
	switch e.Why {
	case RefusedSync:
		return "a folder kept in sync is checked by Sync again, which compares each file with the source's list"
	case RefusedMember:
		return "a file taken out of an archive is checked against the archive's CRC-32 as it lands; Verify and Repair check files against published hashes, and it has none"
	case RefusedRunning:
		return fmt.Sprintf("job %d is %s: pause it first", e.Job, e.State)
	case RefusedChecking:
		return fmt.Sprintf("job %d is being checked already", e.Job)
	case RefusedNoPieceHashes:
		return fmt.Sprintf("Repair needs piece hashes to find the bad bytes of %s, and only a whole-file hash (%s) was published for it: only a new download can replace it.", e.File, e.Hash)
	}
	return fmt.Sprintf("Repair needs a published hash to tell good bytes from bad, and none was published for %s: there is nothing to repair it against.", e.File)
}

// Check verifies (repair false) or repairs job id's files where they are,
// in the background, telling the runner's Observer how it goes
// (CheckEvent), and returns at once; a job it cannot check is a
// *CheckRefused, and nothing changes.
//
// Verify checks each selected file against its piece and whole-file
// hashes (a torrent's against the torrent's) and leaves the job done
// when every file verified, or failed with a hash mismatch naming the bad
// files, each marked in the queue (queue.Mismatched) and its bad pieces
// not done; a seeding torrent with bad pieces stops seeding. A file
// nothing was published for is not called bad: all Verify tells is that
// it is in its folder at its size.
//
// Repair mends each file in place with the engine's repair
// (engine.Client.Repair: only the pieces that fail their hash are fetched
// again, from the mirrors, then the parity set the job's document lists),
// and leaves the job done with each file marked verified by the hash that
// proved it, or failed saying why. A file that is gone, and a torrent's
// bad pieces, are fetched again by the job's next run: the job is queued
// and the service woken. A job whose files have no piece hashes is
// refused.
//
// The check ends with ctx; Wait waits for it.
func (s *Service) Check(ctx context.Context, id int64, repair bool) error {
	r := s.Runner
	j, err := r.Queue.Get(id)
	if err != nil {
		return err
	}
	if err := r.checkable(j, repair); err != nil {
		return err
	}
	s.mu.Lock()
	if s.checking[id] {
		s.mu.Unlock()
		return &CheckRefused{Job: id, Why: RefusedChecking}
	}
	if s.checking == nil {
		s.checking = map[int64]bool{}
	}
	s.checking[id] = true
	s.checked++
	s.checks.Add(1)
	s.mu.Unlock()
	o := r.Observer
	if o == nil {
		o = Quiet{}
	}
	tell := checkTell{o, id, repair}
	tell.progress(CheckProgress{})
	go func() {
		defer s.checks.Done()
		var queued bool
		var err error
		if IsTorrent(j) {
			queued, err = r.checkTorrent(ctx, j, repair, tell)
		} else {
			queued, err = r.checkFiles(ctx, j, repair, s.Client(), tell)
		}
		s.mu.Lock()
		delete(s.checking, id)
		s.checked++ // its end moves the count too: its finding is in the queue
		s.mu.Unlock()
		o.Check(CheckEvent{Job: id, Repair: repair, Kind: CheckEnded, Err: err})
		if queued && err == nil {
			s.Wake()
		}
	}()
	return nil
}

// Wait waits until the checks under way (Check) have ended, for a face
// that closes: end their context first.
func (s *Service) Wait() { s.checks.Wait() }

// checkable says why job j cannot be checked, or nil.
func (r *Runner) checkable(j queue.Job, repair bool) error {
	switch {
	case j.Sync:
		return &CheckRefused{Job: j.ID, Why: RefusedSync}
	case j.Member != nil:
		return &CheckRefused{Job: j.ID, Why: RefusedMember}
	}
	torrentJob := IsTorrent(j)
	switch j.State {
	case queue.Running, queue.Queued:
		if repair || !torrentJob || !slices.Contains(r.Seeding(), j.ID) {
			return &CheckRefused{Job: j.ID, Why: RefusedRunning, State: j.State}
		}
	}
	if !repair || torrentJob {
		return nil
	}
	// Each file on disk needs piece hashes to find its bad bytes; a file
	// that is gone needs none (the next run fetches it whole).
	for _, f := range j.Files {
		if !f.Selected {
			continue
		}
		mf := checkedFile(j, f.Name)
		if piece.PlanFor(mf).Verifiable() {
			continue
		}
		if _, err := os.Stat(filepath.Join(j.Dest, filepath.FromSlash(f.Path()))); errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if h, ok := piece.Strongest(mf.Hashes); ok {
			return &CheckRefused{Job: j.ID, Why: RefusedNoPieceHashes, File: f.Name, Hash: h.Type}
		}
		return &CheckRefused{Job: j.ID, Why: RefusedNoHash, File: f.Name}
	}
	return nil
}

// checkFiles verifies or repairs each selected file of job j, not a
// torrent, and records what it found; queued reports that a file gone is
// to be fetched again.
func (r *Runner) checkFiles(ctx context.Context, j queue.Job, repair bool, c *engine.Client, tell checkTell) (queued bool, err error) {
	q := r.Queue
	root, err := os.OpenRoot(j.Dest)
	if err != nil {
		return false, q.Fail(j.ID, fmt.Errorf("verify: %w", err))
	}
	defer root.Close()
	var bad []error
	refetch := false
	for _, f := range j.Files {
		if !f.Selected {
			continue
		}
		tell.progress(CheckProgress{File: f.Name})
		mf := checkedFile(j, f.Name)
		if mf.Size < 0 && f.Size >= 0 {
			mf.Size = f.Size
		}
		// The bytes are at the file's path, which is not its name when
		// it was saved under a free one.
		disk := mf
		disk.Name = f.Path()
		got := CheckedFile{Name: f.Name}
		switch {
		case hasNothing(mf) && !repair:
			got.Size, err = nothingToCheck(root, f)
			got.Nothing = err == nil
		case repair:
			got.By, err = r.repairFile(ctx, j, f.Name, disk, c, tell)
			if errors.Is(err, fs.ErrNotExist) {
				// Gone: nothing to mend, so the next run fetches it whole.
				if err := q.SetPieces(j.ID, f.Name, piece.NewBitfield(queue.LayoutOf(mf).Count())); err != nil {
					return false, q.Fail(j.ID, err)
				}
				refetch = true
				continue
			}
		default:
			got.By, got.Bad, err = verifyFile(ctx, root, disk)
			if len(got.Bad) > 0 {
				if err := keepPieces(q, j.ID, f.Name, got.Bad, false); err != nil {
					return false, q.Fail(j.ID, err)
				}
			}
		}
		if err != nil {
			if ctx.Err() != nil {
				return false, err
			}
			got.Err = err
			if err := tell.wrong(q, got, &bad); err != nil {
				return false, err
			}
			continue
		}
		tell.checked(got)
		if err := q.SetFile(j.ID, f.Name, queue.VerifiedBy(got.By)); err != nil {
			return false, err
		}
		if err := keepPieces(q, j.ID, f.Name, nil, true); err != nil {
			return false, err
		}
		if err := r.checkSignature(j.ID, root, mf, disk.Name); err != nil {
			bad = append(bad, fmt.Errorf("%s: %w", f.Name, err))
		}
	}
	switch {
	case len(bad) > 0:
		return false, q.Fail(j.ID, errors.Join(bad...))
	case refetch:
		return true, q.SetState(j.ID, queue.Queued)
	}
	_, err = q.Finish(j.ID)
	return false, err
}

// checkedFile is the file of job j called name, or one with only its
// name when its document does not list it.
func checkedFile(j queue.Job, name string) metalink.File {
	if f, ok := docFile(j, name); ok {
		return f
	}
	return metalink.File{Name: name, Size: -1}
}

// hasNothing reports whether nothing Braid can compute was published for
// f: no whole-file hash and no piece hashes.
func hasNothing(f metalink.File) bool {
	_, whole := piece.Strongest(f.Hashes)
	return !whole && !piece.PlanFor(f).Verifiable()
}

// nothingToCheck is Verify of a file nothing was published for: all it
// can tell is whether the file is in its folder at the size its download
// left (which it returns). It never calls the file's bytes bad.
func nothingToCheck(root *os.Root, f queue.File) (int64, error) {
	st, err := root.Stat(filepath.FromSlash(f.Path()))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return 0, fmt.Errorf("%w: it is not in its folder", fs.ErrNotExist)
	case err != nil:
		return 0, err
	case f.Size >= 0 && st.Size() != f.Size:
		return 0, fmt.Errorf("it is %s %s, not the size its download left, and no hash was published to say more", units.English.Int(st.Size()), plural(int(st.Size()), "byte", "bytes"))
	}
	return st.Size(), nil
}

// keepPieces records in the queue what a check found of a file's pieces,
// so a restart shows it too (the segment map, the job's progress, braid
// queue list): the pieces found bad no longer count as done, and after a
// check that proved the file (whole is true) every piece does.
func keepPieces(q *queue.Queue, id int64, name string, bad []int, whole bool) error {
	bits, _, err := q.Pieces(id, name)
	if err != nil {
		return err
	}
	for i := range bits.Len() {
		switch {
		case whole:
			bits.Set(i)
		case slices.Contains(bad, i):
			bits.Clear(i)
		}
	}
	return q.SetPieces(id, name, bits)
}

// checkSignature checks the signature the document gives for a file whose
// hashes matched against the keyring, as `braid verify` does, and records
// the outcome; the file's bytes are at path. The error is the file's
// failure: a bad signature, or with "require a signature" set anything
// but a good one.
func (r *Runner) checkSignature(id int64, root *os.Root, mf metalink.File, path string) error {
	if mf.Signature == nil {
		return nil
	}
	file, err := root.Open(filepath.FromSlash(path))
	if err != nil {
		return fmt.Errorf("check the signature: %w", err)
	}
	defer file.Close()
	o, err := Keyring(r.Queue).Check(mf.Signature, file)
	if err != nil {
		return fmt.Errorf("check the signature: %w", err)
	}
	if err := r.Queue.SetFile(id, mf.Name, queue.Signed(SignatureRecord(o))); err != nil {
		return err
	}
	st, _ := r.Queue.Settings()
	return o.Err(st.RequireSignature)
}

// verifyFile checks a file at its name against every hash published for
// it, the whole-file hash too (as a repair of a good file does), and
// names the hash that proved it, as engine.RepairResult.VerifiedBy does;
// a file that does not match is engine.ErrHashMismatch, saying what is
// wrong, with the pieces known bad.
func verifyFile(ctx context.Context, root *os.Root, mf metalink.File) (string, []int, error) {
	rep, err := piece.VerifyFileFull(ctx, root, mf, 0)
	if err != nil {
		return "", nil, err
	}
	if !rep.OK() {
		return "", rep.Bad, fmt.Errorf("%w (%s)", engine.ErrHashMismatch, reportText(rep))
	}
	return rep.VerifiedBy(), nil, nil
}

// reportText says what is wrong with a file in a few words.
func reportText(r *piece.Report) string {
	switch {
	case r.Size == 0 && r.Expected > 0:
		return "missing"
	case len(r.Missing) > 0:
		return fmt.Sprintf("%d %s missing at the end", len(r.Missing), plural(len(r.Missing), "piece", "pieces"))
	case len(r.Bad) > 0:
		return fmt.Sprintf("%d bad %s", len(r.Bad), plural(len(r.Bad), "piece", "pieces"))
	case r.Trailing > 0:
		return fmt.Sprintf("%s %s too many", units.English.Int(r.Trailing), plural(int(r.Trailing), "byte", "bytes"))
	}
	return fmt.Sprintf("%s mismatch", r.HashType)
}

// repairFile mends one file (mf, at its path; name in the job) in place
// with the engine's repair, telling how many of its bad pieces are
// mended so far, and names the hash that proves it afterwards. A file
// that cannot be mended is a hash mismatch with the engine's reason.
func (r *Runner) repairFile(ctx context.Context, j queue.Job, name string, mf metalink.File, c *engine.Client, tell checkTell) (string, error) {
	var mu sync.Mutex
	p := CheckProgress{File: name}
	say := func(change func(*CheckProgress)) {
		mu.Lock()
		defer mu.Unlock()
		change(&p)
		tell.progress(p)
	}
	res, err := c.Repair(ctx, j.Dest, mf, engine.RepairOptions{
		OriginETag: j.Origin.ETag,
		Referer:    j.Origin.Referer,
		Locations:  r.locations(),
		Progress: func(mended, bad int) {
			say(func(p *CheckProgress) { p.Mended, p.Bad = mended, bad })
		},
		// Mirrors first, then the parity set the job's document lists.
		Parity:     ParityOf(j.Doc, name).Mender(c, nil, 0, j.Dest),
		Rebuilding: func(n int) { say(func(p *CheckProgress) { p.Rebuilding = n }) },
	})
	switch {
	case err == nil:
		return res.VerifiedBy, nil
	case errors.Is(err, fs.ErrNotExist), ctx.Err() != nil:
		return "", err
	case res != nil && res.Before != nil && !res.Before.OK() && !errors.Is(err, engine.ErrHashMismatch):
		return "", fmt.Errorf("%w: %w", engine.ErrHashMismatch, err)
	}
	return "", err
}

// heldFileWait is how long a repair waits for another program to close a
// file it must rename.
const heldFileWait = 30 * time.Second

// checkTorrent verifies a torrent job's files against the torrent's own
// piece hashes, beside its seeding. A repair marks the bad pieces not
// done, gives their files back their .part names (the torrent's storage
// writes only there) and queues the job, whose run fetches those pieces
// again from the swarm; a good torrent is left as it is.
func (r *Runner) checkTorrent(ctx context.Context, j queue.Job, repair bool, tell checkTell) (queued bool, err error) {
	q := r.Queue
	spec, ok, err := q.TorrentSpec(j.ID)
	if err != nil {
		return false, q.Fail(j.ID, fmt.Errorf("verify: %w", err))
	}
	if !ok {
		return false, q.Fail(j.ID, errors.New("verify: the torrent was not kept with the job; add it again to check it"))
	}
	var bad []error
	var mend []string // files with bad pieces, for a repair
	for _, f := range j.Files {
		if !f.Selected {
			continue
		}
		tell.progress(CheckProgress{File: f.Name})
		got := CheckedFile{Name: f.Name}
		got.By, err = r.verifyTorrentFile(ctx, j, spec, f.Name)
		if err != nil {
			if ctx.Err() != nil {
				return false, err
			}
			got.Err = err
			if err := tell.wrong(q, got, &bad); err != nil {
				return false, err
			}
			if errors.Is(err, engine.ErrHashMismatch) {
				mend = append(mend, f.Name)
			}
			continue
		}
		tell.checked(got)
		if err := q.SetFile(j.ID, f.Name, queue.VerifiedBy(got.By)); err != nil {
			return false, err
		}
	}
	if len(bad) == 0 {
		_, err := q.Finish(j.ID)
		return false, err
	}
	// Peers must not be sent the pieces found bad.
	r.StopSeeding(j.ID)
	if !repair || len(mend) < len(bad) {
		return false, q.Fail(j.ID, errors.Join(bad...))
	}
	root, err := os.OpenRoot(j.Dest)
	if err != nil {
		return false, q.Fail(j.ID, fmt.Errorf("verify: %w", err))
	}
	defer root.Close()
	// On Windows a file another program holds (a virus scanner reading
	// the file just checked) cannot be renamed: wait a while for it.
	held, cancel := context.WithTimeout(ctx, heldFileWait)
	defer cancel()
	for _, name := range mend {
		p := filepath.FromSlash(name)
		if err := rootfile.Retry(held, func() error { return root.Rename(p, p+".part") }, nil); err != nil {
			return false, q.Fail(j.ID, errors.Join(append(bad, err)...))
		}
	}
	return true, q.SetState(j.ID, queue.Queued)
}

// verifyTorrentFile checks a file of torrent job j against the torrent's
// own piece hashes; pieces that fail are recorded not done, so the
// pieces map says which.
func (r *Runner) verifyTorrentFile(ctx context.Context, j queue.Job, spec *torrent.Spec, name string) (string, error) {
	c, err := torrent.Verify(ctx, j.Dest, spec, name)
	switch {
	case err != nil:
		return "", err
	case c.Missing:
		return "", fmt.Errorf("%w: it is not in its folder", fs.ErrNotExist)
	case len(c.Bad) > 0:
		if tp, err := r.Queue.TorrentPieces(j.Dest); err == nil {
			_ = tp.Set(spec.InfoHash.HexString(), c.Bad, false)
		}
		keepCheckedBytes(r.Queue, j.ID, spec, name, c.Bad)
		return "", fmt.Errorf("%w (%d of %d pieces do not match the torrent's hashes)", engine.ErrHashMismatch, len(c.Bad), c.Pieces)
	case !c.OK():
		return "", fmt.Errorf("%w (none of its pieces could be checked: they share bytes with files not downloaded)", engine.ErrHashMismatch)
	}
	return queue.ByTorrent, nil
}

// keepCheckedBytes records, for a torrent file a Verify found bad pieces
// in, the bytes it keeps: its size less its bytes in those pieces, as a
// stopped torrent records what it keeps (keepTorrentBytes). The file is
// no longer verified then, and the queue counts a torrent's file by these
// bytes alone (its pieces are per torrent), so without them the row would
// say "0 B" of a file all but one piece of which is good.
func keepCheckedBytes(q *queue.Queue, id int64, spec *torrent.Spec, name string, bad []int) {
	sh, ok, err := spec.Shape()
	if err != nil || !ok {
		return
	}
	for _, f := range sh.Files {
		if f.Name != name {
			continue
		}
		kept := f.Size
		for _, p := range bad {
			start := max(int64(p)*sh.PieceLength, f.Offset)
			end := min(int64(p+1)*sh.PieceLength, f.Offset+f.Size)
			kept -= max(end-start, 0)
		}
		_ = q.Journal(id).KeptBytes(name, max(kept, 0)) // progress shown, not the check's outcome
		return
	}
}
