package queue

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"braid/engine"
	"braid/engine/metalink"
	"braid/engine/piece"
	"braid/engine/torrent"
)

var (
	_ engine.Journal         = (*Journal)(nil)
	_ engine.JournalResetter = (*Journal)(nil)
)

// ErrPaused: the job was paused while it ran, by the user or by Braid
// (the reason follows it in the error and is in the job's Error).
var ErrPaused = errors.New("job paused")

// errUserPaused is ErrPaused when someone paused or removed the job.
var errUserPaused = fmt.Errorf("%w by the user", ErrPaused)

// pollInterval is how often a running job's snapshot is read and its state
// checked, so a pause from the window or another braid command takes
// effect within about this long.
const pollInterval = time.Second

// Runner feeds a queue's jobs, in queue order, to an engine Client: it
// resumes each file from its stored bitfield (after checking the .part),
// journals pieces as the engine syncs them, learns mirror speeds and
// strikes, and marks jobs done, failed or paused.
//
// A Runner runs one job at a time; RunJob and Run must not be called
// concurrently on one Runner, but Live may be called from any goroutine
// meanwhile. Only the queue's owner (Queue.Owner) may run jobs.
type Runner struct {
	Queue *Queue
	// Client downloads the files; nil makes one from the queue's Settings
	// (Settings.Client) when the first file starts, kept for the Runner's
	// life.
	Client *engine.Client
	// Locations are the user's countries, most preferred first; nil takes
	// them from the queue's settings.
	Locations []string
	// Progress, when not nil, is called with the job and a snapshot of the
	// file it is downloading when the file starts, about once a second
	// while it runs and when it ends, on the runner's goroutine; it must
	// return quickly. For progress at a display's own rate, read Live.
	Progress func(Job, engine.Snapshot)
	// Torrent runs the jobs whose files come from a torrent
	// (torrent_run.go); nil makes one from the settings when needed.
	Torrent *torrent.Client
	tor     torrentLive
	// RequireSignature fails a file unless a key of the state folder's
	// keyring signed it (it stays NAME.part); a bad signature fails it
	// either way.
	RequireSignature bool

	mu  sync.Mutex // guards cur and dl
	cur int64      // the job whose file dl is downloading
	dl  *engine.Download
}

// Live returns the engine's download of the file job id is on now, so a
// display can read its Snapshot (or SnapshotInto) at its own rate without
// waiting for Progress; false when the runner is not downloading a file
// of that job. The Download stays valid after the runner moves on (it
// then reports its end). Safe for concurrent use.
func (r *Runner) Live(id int64) (*engine.Download, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.dl == nil || r.cur != id {
		return nil, false
	}
	return r.dl, true
}

func (r *Runner) setLive(id int64, dl *engine.Download) {
	r.mu.Lock()
	r.cur, r.dl = id, dl
	r.mu.Unlock()
}

// client is the Client to download with.
func (r *Runner) client() (*engine.Client, error) {
	if r.Client == nil {
		s, err := r.Queue.Settings()
		if err != nil {
			return nil, err
		}
		r.Client = s.Client()
	}
	return r.Client, nil
}

// Run runs queued jobs in queue order until none is left or ctx ends. A job
// that fails or that Braid pauses (its folder vanished, say) does not stop
// the others: Run returns their errors joined, or nil when every job it ran
// finished or was paused by the user. When ctx ends, the job in hand goes
// back to queued with its progress kept, and Run returns ctx's error.
func (r *Runner) Run(ctx context.Context) error {
	var failed []error
	for {
		if err := ctx.Err(); err != nil {
			return errors.Join(append(failed, err)...)
		}
		id, ok, err := r.Queue.next()
		if err != nil {
			return errors.Join(append(failed, err)...)
		}
		if !ok {
			return errors.Join(failed...)
		}
		err = r.RunJob(ctx, id)
		switch {
		case err == nil, errors.Is(err, errUserPaused):
		case ctx.Err() != nil:
			return errors.Join(append(failed, err)...)
		default:
			failed = append(failed, err)
		}
	}
}

// next returns the first queued job.
func (q *Queue) next() (int64, bool, error) {
	var id int64
	err := q.db.QueryRow(`SELECT id FROM jobs WHERE state = 'queued' ORDER BY position, id LIMIT 1`).Scan(&id)
	if err == nil {
		return id, true, nil
	}
	if errors.Is(err, sql.ErrNoRows) {
		return 0, false, nil
	}
	return 0, false, q.wrap("find the next job", err)
}

// RunJob runs one queued job to its end: nil when every selected file is
// verified at its final name (a done job returns nil at once). A job that
// is not queued is ErrState. When ctx ends the job goes back to queued and
// the error wraps ctx's; when the job is paused meanwhile, or Braid pauses
// it (destination gone or read-only, disk full), the error wraps ErrPaused.
func (r *Runner) RunJob(ctx context.Context, id int64) error {
	q := r.Queue
	if !q.tryOwn() {
		return fmt.Errorf("run job %d: %w", id, ErrNotOwner)
	}
	j, err := q.Get(id)
	if err != nil {
		return err
	}
	if j.State == Done {
		return nil
	}
	ok, err := q.claim(id)
	if err != nil {
		return err
	}
	if !ok {
		s, _ := q.state(id)
		return fmt.Errorf("run job %d: %w: it is %s", id, ErrState, s)
	}
	j.State = Running
	return r.settle(ctx, j, r.run(ctx, j))
}

// settle records how a run ended.
func (r *Runner) settle(ctx context.Context, j Job, err error) error {
	q := r.Queue
	var pe *pauseError
	switch {
	case err == nil:
		if err := q.Finish(j.ID); err != nil {
			return err
		}
		return nil
	case errors.Is(err, errUserPaused):
		return fmt.Errorf("job %d: %w", j.ID, err)
	case ctx.Err() != nil:
		// Interrupted (Ctrl-C, the window closing): runnable next time,
		// exactly where the journal says.
		if _, dbErr := q.db.Exec(`UPDATE jobs SET state = 'queued' WHERE id = ? AND state = 'running'`, j.ID); dbErr != nil {
			return errors.Join(fmt.Errorf("job %d: %w", j.ID, err), q.wrap(fmt.Sprintf("requeue job %d", j.ID), dbErr))
		}
		return fmt.Errorf("job %d: %w", j.ID, err)
	case errors.As(err, &pe):
		if dbErr := q.Pause(j.ID, pe.reason); dbErr != nil {
			return errors.Join(err, dbErr)
		}
		return fmt.Errorf("job %d: %w", j.ID, err)
	default:
		if dbErr := q.Fail(j.ID, err); dbErr != nil {
			return errors.Join(err, dbErr)
		}
		return fmt.Errorf("job %d: %w", j.ID, err)
	}
}

// pauseError is a problem the user can fix outside Braid (a folder to plug
// back in, make writable or free): the job pauses rather than fails.
type pauseError struct {
	reason string
	err    error
}

func (e *pauseError) Error() string { return fmt.Sprintf("%v: %s", ErrPaused, e.reason) }

func (e *pauseError) Unwrap() []error { return []error{ErrPaused, e.err} }

func (r *Runner) run(ctx context.Context, j Job) error {
	q := r.Queue
	if err := prepareDest(j); err != nil {
		return err
	}
	if err := r.refreshStale(ctx, &j); err != nil {
		return err
	}
	if src, ok := torrentSource(j); ok {
		return r.runTorrent(ctx, j, src)
	}
	locs := r.Locations
	if locs == nil {
		if s, err := q.Settings(); err == nil {
			locs = s.Countries
		}
	}
	client, err := r.client()
	if err != nil {
		return err
	}
	root, err := os.OpenRoot(j.Dest)
	if err != nil {
		return destProblem(j.Dest, err)
	}
	defer root.Close()
	for _, f := range j.Files {
		if !f.Selected {
			continue
		}
		if f.Verified {
			if _, err := root.Stat(filepath.FromSlash(f.Name)); err == nil {
				continue // verified at its final name in an earlier run
			}
			// Verified once but gone since: fetch it again.
			if err := q.SetVerified(j.ID, f.Name, false); err != nil {
				return err
			}
		}
		mf, err := r.fileOf(j, f)
		if err != nil {
			return err
		}
		done, err := q.TrustedPieces(ctx, j.ID, j.Dest, mf)
		if err != nil {
			return err
		}
		dl := client.Do(ctx, &engine.Request{
			Dir:        j.Dest,
			File:       mf,
			OriginETag: j.Origin.ETag,
			Referer:    j.Origin.Referer,
			Done:       done,
			Journal:    q.Journal(j.ID),
			Locations:  locs,
			Check:      q.SignatureCheck(j.ID, mf, r.RequireSignature),
		})
		r.setLive(j.ID, dl)
		err = r.watch(ctx, j, dl)
		r.setLive(0, nil)
		if again, ok := r.refreshOnNoMirrors(ctx, &j, f, err); ok {
			return r.run(again, j) // with the mirrors or the version the origin lists now
		}
		if errors.Is(err, engine.ErrHashMismatch) {
			if dbErr := q.SetMismatch(j.ID, f.Name, true); dbErr != nil {
				return errors.Join(err, dbErr)
			}
		}
		if err != nil {
			return classify(j.Dest, err)
		}
		if err := q.SetVerified(j.ID, f.Name, true); err != nil {
			return err
		}
	}
	return nil
}

// fileOf is the metalink file to download: the stored document's, with the
// mirrors the queue remembers, ordered by priority, then by the speed they
// had last time (fastest first; mirrors never measured after those that
// were), then by strikes.
func (r *Runner) fileOf(j Job, f File) (metalink.File, error) {
	var mf metalink.File
	found := false
	for _, df := range j.Doc.Files {
		if df.Name == f.Name {
			mf, found = df, true
			break
		}
	}
	if !found {
		return mf, fmt.Errorf("job %d: file %s is not in the stored document", j.ID, f.Name)
	}
	if f.Size >= 0 && mf.Size < 0 {
		mf.Size = f.Size
	}
	byURL := map[string]metalink.URL{}
	for _, u := range mf.URLs {
		byURL[u.URL] = u
	}
	type ranked struct {
		u       metalink.URL
		bps     float64
		strikes int
	}
	var rs []ranked
	for _, m := range f.Mirrors {
		u, ok := byURL[m.URL]
		if !ok {
			u = metalink.URL{URL: m.URL}
		}
		u.Location, u.Priority = m.Location, m.Priority
		bps, _, err := r.Queue.MirrorSpeed(HostOf(m.URL))
		if err != nil {
			return mf, err
		}
		rs = append(rs, ranked{u, bps, m.Strikes})
	}
	slices.SortStableFunc(rs, func(a, b ranked) int {
		return cmp.Or(cmp.Compare(a.u.Priority, b.u.Priority), cmp.Compare(b.bps, a.bps), cmp.Compare(a.strikes, b.strikes))
	})
	mf.URLs = mf.URLs[:0:0]
	for _, x := range rs {
		mf.URLs = append(mf.URLs, x.u)
	}
	return mf, nil
}

// TrustedPieces returns the pieces of a job's file f that the engine may
// take as done in its .part under dest (Request.Done), or nil to start the
// file afresh. It checks the .part against the stored bitfield (CheckPart),
// re-hashes claimed pieces of a .part that is longer than the file, and
// stores what it finds, so the journal never claims more than the disk
// holds.
func (q *Queue) TrustedPieces(ctx context.Context, id int64, dest string, f metalink.File) (*piece.Bitfield, error) {
	b, l, err := q.Pieces(id, f.Name)
	if err != nil {
		return nil, err
	}
	want := LayoutOf(f)
	if l.Size < 0 || want.Size < 0 || l != want || b.Len() != want.Count() {
		// Size unknown until a mirror says, or stored by another layout:
		// nothing recorded can be matched to the engine's pieces.
		if b.Count() > 0 || b.Len() != want.Count() || l != want {
			if err := q.resetFile(id, f.Name, want); err != nil {
				return nil, err
			}
		}
		return nil, nil
	}
	if b.Count() == 0 {
		return nil, nil
	}
	root, err := os.OpenRoot(dest)
	if err != nil {
		return nil, destProblem(dest, err)
	}
	defer root.Close()
	part := filepath.FromSlash(f.Name) + ".part"
	size := int64(-1)
	if fi, err := root.Stat(part); err == nil && fi.Mode().IsRegular() {
		size = fi.Size()
	}
	t := CheckPart(b, l, size)
	if t.Recheck {
		if err := recheck(ctx, root, part, size, f, t.Done); err != nil {
			return nil, err
		}
	}
	if t.Done.Count() != b.Count() {
		if err := q.SetPieces(id, f.Name, t.Done); err != nil {
			return nil, err
		}
	}
	if t.Done.Count() == 0 {
		return nil, nil
	}
	return t.Done, nil
}

// recheck keeps in done only the pieces whose bytes in part match their
// piece hashes; without piece hashes nothing in a .part of the wrong size
// can be vouched for, and done is emptied.
func recheck(ctx context.Context, root *os.Root, part string, size int64, f metalink.File, done *piece.Bitfield) error {
	clear := func() {
		for i := range done.Len() {
			done.Clear(i)
		}
	}
	if !piece.PlanFor(f).Verifiable() {
		clear()
		return nil
	}
	file, err := root.Open(part)
	if err != nil {
		clear()
		return nil
	}
	defer file.Close()
	rep, err := piece.Verify(ctx, file, size, f, 0)
	if err != nil {
		return fmt.Errorf("recheck %s: %w", part, err)
	}
	for i := range done.Len() {
		if done.Has(i) && !rep.Good.Has(i) {
			done.Clear(i)
		}
	}
	return nil
}

// watch follows a download to its end: it reports progress, stops the
// download when the job is paused or removed elsewhere, and afterwards
// records the mirrors' speeds and strikes.
func (r *Runner) watch(ctx context.Context, j Job, dl *engine.Download) error {
	q := r.Queue
	tick := time.NewTicker(pollInterval)
	defer tick.Stop()
	var snap engine.Snapshot
	speeds := map[string][]float64{}
	sample := func() {
		dl.SnapshotInto(&snap)
		for _, m := range snap.Mirrors {
			if m.Conns > 0 && m.Speed > 0 {
				h := HostOf(m.URL)
				speeds[h] = append(speeds[h], float64(m.Speed))
			}
		}
	}
	sample()
	if r.Progress != nil {
		r.Progress(j, snap)
	}
	var stopped error
loop:
	for {
		select {
		case <-dl.Done():
			break loop
		case <-tick.C:
			sample()
			if r.Progress != nil {
				r.Progress(j, snap)
			}
			s, err := q.state(j.ID)
			if errors.Is(err, ErrNotFound) || (err == nil && s != Running) {
				stopped = errUserPaused
				_ = dl.Cancel()
				break loop
			}
			// A read that fails (the database busy for a moment) is
			// retried on the next tick; the download goes on.
		}
	}
	err := dl.Err()
	dl.SnapshotInto(&snap)
	if r.Progress != nil {
		r.Progress(j, snap)
	}
	r.learn(j, snap, speeds)
	if stopped != nil {
		return stopped
	}
	return err
}

// learn stores what a download taught about its mirrors. Failing to store
// it costs only a better start next time, so errors are ignored.
func (r *Runner) learn(j Job, snap engine.Snapshot, speeds map[string][]float64) {
	for _, m := range snap.Mirrors {
		h := HostOf(m.URL)
		var bps float64
		if s := speeds[h]; len(s) > 0 {
			for _, v := range s {
				bps += v
			}
			bps /= float64(len(s))
		} else if m.Bytes > 0 && snap.Elapsed > 0 {
			// Too short for a sample on the ticker.
			bps = float64(m.Bytes) / snap.Elapsed.Seconds()
		}
		if bps > 0 {
			_ = r.Queue.RecordMirrorSpeed(h, bps)
		}
		if m.Strikes > 0 {
			_ = r.Queue.AddStrikes(j.ID, snap.Name, m.URL, m.Strikes)
		}
	}
}

// HostOf is the host[:port] of a mirror URL in lower case, the key of the
// speed history; "" when the URL has none.
func HostOf(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return ""
	}
	return strings.ToLower(u.Host)
}

// prepareDest makes sure the job's folder is there and writable. A folder
// that is missing is made for a job that has not started; for one with
// progress it is a vanished folder (an unplugged disk, say) and the job
// pauses rather than start over somewhere the user did not mean.
func prepareDest(j Job) error {
	fi, err := os.Stat(j.Dest)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		for _, f := range j.Files {
			if f.Selected && (f.Done > 0 || f.Verified) {
				return &pauseError{fmt.Sprintf("the destination folder %s no longer exists", j.Dest), err}
			}
		}
		if err := os.MkdirAll(j.Dest, 0o755); err != nil {
			return destProblem(j.Dest, err)
		}
	case err != nil:
		return destProblem(j.Dest, err)
	case !fi.IsDir():
		return &pauseError{fmt.Sprintf("the destination %s is not a folder", j.Dest), fs.ErrInvalid}
	}
	// Permission bits do not tell (root, ACLs, a read-only mount): try.
	probe := filepath.Join(j.Dest, fmt.Sprintf(".braid-probe-%d", os.Getpid()))
	f, err := os.OpenFile(probe, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return destProblem(j.Dest, err)
	}
	f.Close()
	return os.Remove(probe)
}

// destProblem turns a file-system error about the destination into the
// pause the user can act on, or returns it as it is.
func destProblem(dest string, err error) error {
	switch {
	case errors.Is(err, fs.ErrPermission), errors.Is(err, syscall.EROFS):
		return &pauseError{fmt.Sprintf("the destination folder %s is read-only", dest), err}
	case errors.Is(err, syscall.ENOSPC):
		return &pauseError{fmt.Sprintf("the disk of %s is full", dest), err}
	case errors.Is(err, fs.ErrNotExist):
		if _, statErr := os.Stat(dest); errors.Is(statErr, fs.ErrNotExist) {
			return &pauseError{fmt.Sprintf("the destination folder %s no longer exists", dest), err}
		}
	}
	return err
}

// classify turns a download's error about the destination into a pause.
// The engine's errors already name the file.
func classify(dest string, err error) error {
	if errors.Is(err, errUserPaused) {
		return err
	}
	return destProblem(dest, err)
}
