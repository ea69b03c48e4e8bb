package queue

import (
	"cmp"
	"context"
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

// pollInterval is how often a running job's snapshot is read, its state
// checked and the settings looked at, so a pause from the window or
// another braid command, or a changed limit, takes effect within about
// this long.
const pollInterval = time.Second

// Runner feeds a queue's jobs, in queue order, to an engine Client: it
// resumes each file from its stored bitfield (after checking the .part),
// journals pieces as the engine syncs them, learns mirror speeds and
// strikes, and marks jobs done, failed or paused.
//
// Run runs several jobs at once (Jobs, or the "downloads at once"
// setting), and each job runs several of its files at once; the Client's
// connection budget (a total and a per-host cap) holds across all of them.
// While Run runs it follows the queue's settings: a changed speed or
// connection limit reaches the running downloads within about a second.
// Run and RunJob may be called from several goroutines, each on its own
// jobs; Live may be called from any goroutine meanwhile. Only the queue's
// owner (Queue.Owner) may run jobs.
type Runner struct {
	Queue *Queue
	// Client downloads the files; nil makes one from the queue's Settings
	// (Settings.Client) when the first file starts, kept for the Runner's
	// life.
	Client *engine.Client
	// Locations are the user's countries, most preferred first; nil takes
	// them from the queue's settings.
	Locations []string
	// Progress, when not nil, is called with the job and a snapshot of a
	// file it is downloading when the file starts, about once a second
	// while it runs and when it ends. Calls are never concurrent, but come
	// from the runner's goroutines; it must return quickly. For progress
	// at a display's own rate, read Live.
	Progress func(Job, engine.Snapshot)
	// Torrent runs the jobs whose files come from a torrent
	// (torrent_run.go); nil makes one from the settings when needed.
	Torrent *torrent.Client
	tor     torrentLive
	// RequireSignature fails a file unless a key of the state folder's
	// keyring signed it (it stays NAME.part); a bad signature fails it
	// either way.
	RequireSignature bool
	// Jobs is the most jobs Run runs at once; 0 takes the queue's setting
	// (Settings.Jobs). Either way a later change of that setting is
	// followed.
	Jobs int

	mu      sync.Mutex // guards what follows
	live    map[int64][]*engine.Download
	jobs    int      // jobs at once now (Run)
	seen    Settings // the settings last applied to Client
	hasSeen bool
	batch   *JournalBatch

	progressMu sync.Mutex // one Progress call at a time
}

// Live returns the engine's download of a file job id is on now, so a
// display can read its Snapshot (or SnapshotInto) at its own rate without
// waiting for Progress; false when the runner is not downloading a file
// of that job. When several files of the job download at once it is the
// one that started first, so a display stays on one file until it ends
// (LiveAll lists them all). The Download stays valid after the runner
// moves on (it then reports its end). Safe for concurrent use.
func (r *Runner) Live(id int64) (*engine.Download, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if dls := r.live[id]; len(dls) > 0 {
		return dls[0], true
	}
	return nil, false
}

// LiveAll returns the engine's downloads of every file job id has running
// now, oldest first. Safe for concurrent use.
func (r *Runner) LiveAll(id int64) []*engine.Download {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.live[id])
}

func (r *Runner) addLive(id int64, dl *engine.Download) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.live == nil {
		r.live = map[int64][]*engine.Download{}
	}
	r.live[id] = append(r.live[id], dl)
}

func (r *Runner) dropLive(id int64, dl *engine.Download) {
	r.mu.Lock()
	defer r.mu.Unlock()
	dls := slices.DeleteFunc(r.live[id], func(x *engine.Download) bool { return x == dl })
	if len(dls) == 0 {
		delete(r.live, id)
	} else {
		r.live[id] = dls
	}
}

// progress calls Progress, one call at a time.
func (r *Runner) progress(j Job, s engine.Snapshot) {
	if r.Progress == nil {
		return
	}
	r.progressMu.Lock()
	defer r.progressMu.Unlock()
	r.Progress(j, s)
}

// client is the Client to download with.
func (r *Runner) client() (*engine.Client, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.Client == nil || !r.hasSeen {
		s, err := r.Queue.Settings()
		if err != nil {
			return nil, err
		}
		if r.Client == nil {
			r.Client = s.Client()
		}
		r.seen, r.hasSeen = s, true
	}
	return r.Client, nil
}

// journal is the journal a job's files record their pieces in: one batch
// for all the runner's files, one transaction per round.
func (r *Runner) journal(job int64) engine.Journal { return r.batchOf().Journal(job) }

func (r *Runner) batchOf() *JournalBatch {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.batch == nil {
		r.batch = r.Queue.NewJournalBatch()
	}
	return r.batch
}

// follow applies settings changed since the last look to the Client and
// to the number of jobs at once. A failed read is tried again next time.
func (r *Runner) follow() {
	s, err := r.Queue.Settings()
	if err != nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.hasSeen {
		r.seen, r.hasSeen = s, true
		return
	}
	s.applyChanges(r.seen, r.Client)
	if s.Jobs != r.seen.Jobs {
		r.jobs = s.Jobs
	}
	r.seen = s
}

func (r *Runner) jobsAtOnce() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return max(r.jobs, 1)
}

// Run runs queued jobs in queue order until none is left or ctx ends, up
// to Jobs at once: when one ends, the first queued job not yet running
// starts. A job that fails or that Braid pauses (its folder vanished, say)
// does not stop the others: Run returns their errors joined, or nil when
// every job it ran finished or was paused by the user. When ctx ends, the
// jobs in hand go back to queued with their progress kept, and Run returns
// ctx's error once they have stopped.
func (r *Runner) Run(ctx context.Context) error {
	if _, err := r.client(); err != nil {
		return err
	}
	r.mu.Lock()
	r.jobs = r.Jobs
	if r.jobs <= 0 {
		r.jobs = cmp.Or(r.seen.Jobs, DefaultJobs)
	}
	r.mu.Unlock()
	type ended struct {
		id  int64
		err error
	}
	ends := make(chan ended)
	running := map[int64]bool{}
	var failed []error
	var stop error // no new job starts
	tick := time.NewTicker(pollInterval)
	defer tick.Stop()
	for {
		for stop == nil && ctx.Err() == nil && len(running) < r.jobsAtOnce() {
			id, ok, err := r.Queue.next(running)
			if err != nil {
				stop = err
				failed = append(failed, err)
				break
			}
			if !ok {
				break
			}
			running[id] = true
			go func() { ends <- ended{id, r.RunJob(ctx, id)} }()
		}
		if len(running) == 0 {
			if err := ctx.Err(); err != nil {
				failed = append(failed, err)
			}
			return errors.Join(failed...)
		}
		select {
		case e := <-ends:
			delete(running, e.id)
			switch {
			case e.err == nil, errors.Is(e.err, errUserPaused):
			case ctx.Err() != nil && errors.Is(e.err, ctx.Err()):
				// Interrupted with the others; Run reports ctx's error once.
			case errors.Is(e.err, ErrNotOwner):
				stop = e.err
				failed = append(failed, e.err)
			default:
				failed = append(failed, e.err)
			}
		case <-tick.C:
			r.follow()
		}
	}
}

// next returns the first queued job, in queue order, that is not in skip.
func (q *Queue) next(skip map[int64]bool) (int64, bool, error) {
	rows, err := q.db.Query(`SELECT id FROM jobs WHERE state = 'queued' ORDER BY position, id LIMIT ?`, len(skip)+1)
	if err != nil {
		return 0, false, q.wrap("find the next job", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return 0, false, q.wrap("find the next job", err)
		}
		if !skip[id] {
			return id, true, nil
		}
	}
	if err := rows.Err(); err != nil {
		return 0, false, q.wrap("find the next job", err)
	}
	return 0, false, nil
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
	var todo []File
	for _, f := range j.Files {
		if !f.Selected {
			continue
		}
		if f.Verified {
			if _, err := root.Stat(filepath.FromSlash(f.Path())); err == nil {
				continue // verified at its final name in an earlier run
			}
			// Verified once but gone since: fetch it again.
			if err := q.SetVerified(j.ID, f.Name, false); err != nil {
				return err
			}
		}
		todo = append(todo, f)
	}
	if len(todo) == 0 {
		return nil
	}
	jr := r.newJobRun(j)
	jr.client, jr.locs, jr.batch = client, locs, len(todo) > 1
	return jr.runFiles(ctx, todo)
}

// newJobRun is a run of job j with its document's files indexed by name.
func (r *Runner) newJobRun(j Job) *jobRun {
	jr := &jobRun{r: r, j: j, docs: make(map[string]int, len(j.Doc.Files)),
		speeds: map[string]float64{}, heardSpeeds: map[string][2]float64{}}
	for i, df := range j.Doc.Files {
		jr.docs[df.Name] = i
	}
	return jr
}

// jobRun is one run of a job: its files download side by side, as many at
// once as the Client has connections, and the job stops as a whole when
// it is paused or its destination fails.
type jobRun struct {
	r      *Runner
	j      Job
	client *engine.Client
	locs   []string
	batch  bool           // more than one file: small ones come whole (Request.Batch)
	docs   map[string]int // file name → index in j.Doc.Files

	mu          sync.Mutex            // guards speeds and heardSpeeds
	speeds      map[string]float64    // host → remembered speed, read once per run
	heardSpeeds map[string][2]float64 // host → sum and count of speeds heard this run
}

// runFiles downloads todo and returns the first error. A file that fails
// does not stop the others; a pause (by the user, or a destination
// problem) stops them all, keeping their progress.
func (jr *jobRun) runFiles(ctx context.Context, todo []File) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	guarded := make(chan struct{})
	go func() {
		defer close(guarded)
		jr.guard(ctx, cancel)
	}()
	var (
		files sync.WaitGroup
		mu    sync.Mutex // guards next and first
		next  int
		first error
	)
	for range min(len(todo), jr.client.FilesAtOnce()) {
		files.Add(1)
		go func() {
			defer files.Done()
			for {
				mu.Lock()
				if next == len(todo) || ctx.Err() != nil {
					mu.Unlock()
					return
				}
				f := todo[next]
				next++
				mu.Unlock()
				err := jr.runFile(ctx, f)
				if err == nil {
					continue
				}
				mu.Lock()
				if first == nil {
					first = err
				}
				mu.Unlock()
				if errors.Is(err, ErrPaused) {
					cancel(err)
				}
			}
		}()
	}
	files.Wait()
	jr.record()
	cause := context.Cause(ctx)
	cancel(nil)
	<-guarded
	var pe *pauseError
	switch {
	case errors.Is(cause, errUserPaused):
		return errUserPaused
	case errors.As(cause, &pe):
		return cause
	}
	return first
}

// guard stops the job's files when the job is paused or removed elsewhere
// (the window, another braid command), checking once a poll interval.
func (jr *jobRun) guard(ctx context.Context, stop context.CancelCauseFunc) {
	t := time.NewTicker(pollInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			s, err := jr.r.Queue.state(jr.j.ID)
			if errors.Is(err, ErrNotFound) || (err == nil && s != Running) {
				stop(errUserPaused)
				return
			}
			// A read that fails (the database busy for a moment) is
			// retried on the next tick; the download goes on.
		}
	}
}

// runFile downloads one file of the job and marks it verified.
func (jr *jobRun) runFile(ctx context.Context, f File) error {
	return jr.runFileOf(ctx, jr.j, f)
}

// runFileOf is runFile for f as job j now stands: the job as this run
// began, or as a refresh of its dynamic document left it.
func (jr *jobRun) runFileOf(ctx context.Context, j Job, f File) error {
	r, q := jr.r, jr.r.Queue
	mf, err := jr.fileOf(j, f)
	if err != nil {
		return err
	}
	done, err := q.TrustedPieces(ctx, j.ID, j.Dest, mf)
	if err != nil {
		return err
	}
	dl := jr.client.Do(ctx, &engine.Request{
		Dir:        j.Dest,
		File:       mf,
		OriginETag: j.Origin.ETag,
		Referer:    j.Origin.Referer,
		Done:       done,
		SaveAs:     f.SavedAs,
		Journal:    r.journal(j.ID),
		Locations:  jr.locs,
		Batch:      jr.batch,
		Check:      q.SignatureCheck(j.ID, mf, r.RequireSignature),
	})
	r.addLive(j.ID, dl)
	err = r.watch(j, dl, jr.heard)
	r.dropLive(j.ID, dl)
	if again, ok := r.refreshOnNoMirrors(ctx, &j, f, err); ok {
		// The origin lists mirrors the file did not have, or a new
		// version: fetch the file again as the job now stands.
		for _, nf := range j.Files {
			if nf.Name == f.Name {
				return jr.runFileOf(again, j, nf)
			}
		}
	}
	if errors.Is(err, engine.ErrHashMismatch) {
		if dbErr := q.SetMismatch(j.ID, f.Name, true); dbErr != nil {
			return errors.Join(err, dbErr)
		}
	}
	if err != nil {
		return classify(j.Dest, err)
	}
	snap := dl.Snapshot()
	if jr.batch {
		// Files of a batch ending together share a transaction.
		return r.batchOf().Landed(j.ID, f.Name, &snap)
	}
	return q.Landed(j.ID, f.Name, &snap)
}

// heard notes a mirror host's speed in one file; the job records each
// host's average once, when its files are done (record), rather than a
// write per file and mirror.
func (jr *jobRun) heard(host string, bps float64) {
	jr.mu.Lock()
	defer jr.mu.Unlock()
	s := jr.heardSpeeds[host]
	jr.heardSpeeds[host] = [2]float64{s[0] + bps, s[1] + 1}
}

// record stores the speeds heard. Failing to store them costs only a
// better start next time, so errors are ignored.
func (jr *jobRun) record() {
	jr.mu.Lock()
	defer jr.mu.Unlock()
	for h, s := range jr.heardSpeeds {
		_ = jr.r.Queue.RecordMirrorSpeed(h, s[0]/s[1])
	}
	clear(jr.heardSpeeds)
}

// fileOf is the metalink file to download: the stored document's, with the
// mirrors the queue remembers, ordered by priority, then by the speed they
// had last time (fastest first; mirrors never measured after those that
// were), then by strikes.
func (jr *jobRun) fileOf(j Job, f File) (metalink.File, error) {
	var mf metalink.File
	i, found := jr.docs[f.Name]
	if j.Doc != jr.j.Doc {
		// A refreshed document: its files are not indexed.
		i = slices.IndexFunc(j.Doc.Files, func(df metalink.File) bool { return df.Name == f.Name })
		found = i >= 0
	}
	if !found {
		return mf, fmt.Errorf("job %d: file %s is not in the stored document", j.ID, f.Name)
	}
	mf = j.Doc.Files[i]
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
		bps, err := jr.speed(HostOf(m.URL))
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

// speed is the remembered speed of host, read from the queue once per run
// of the job: a job of many files on a few mirrors asks once per mirror.
func (jr *jobRun) speed(host string) (float64, error) {
	jr.mu.Lock()
	defer jr.mu.Unlock()
	if bps, ok := jr.speeds[host]; ok {
		return bps, nil
	}
	bps, _, err := jr.r.Queue.MirrorSpeed(host)
	if err != nil {
		return 0, err
	}
	jr.speeds[host] = bps
	return bps, nil
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

// watch follows a download to its end: it reports progress and
// afterwards tells heard the mirrors' speeds and records their strikes.
// Stopping it when the job is paused elsewhere is the job's guard's work.
func (r *Runner) watch(j Job, dl *engine.Download, heard func(host string, bps float64)) error {
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
	r.progress(j, snap)
	var waiting time.Time // the next try the job's note names, zero when none
loop:
	for {
		select {
		case <-dl.Done():
			break loop
		case <-tick.C:
			sample()
			waiting = r.noteWaiting(j.ID, &snap, waiting)
			r.progress(j, snap)
		}
	}
	err := dl.Err()
	dl.SnapshotInto(&snap)
	r.progress(j, snap)
	r.learn(j, snap, speeds, heard)
	return err
}

// learn passes on what a download taught about its mirrors' speeds, and
// stores their strikes. Failing to store them costs only a better start
// next time, so errors are ignored.
func (r *Runner) learn(j Job, snap engine.Snapshot, speeds map[string][]float64, heard func(host string, bps float64)) {
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
			heard(h, bps)
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
	// A name of its own: jobs going to one folder start side by side.
	f, err := os.CreateTemp(j.Dest, ".braid-probe-*")
	if err != nil {
		return destProblem(j.Dest, err)
	}
	f.Close()
	return os.Remove(f.Name())
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
