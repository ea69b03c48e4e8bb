package runner

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"braid/engine"
	"braid/engine/metalink"
	"braid/engine/netconf"
	"braid/engine/signature"
	"braid/engine/torrent"
	"braid/queue"
)

var (
	_ engine.Journal         = (*queue.Journal)(nil)
	_ engine.JournalResetter = (*queue.Journal)(nil)
)

// errUserPaused is queue.ErrPaused when someone paused or removed the job.
var errUserPaused = fmt.Errorf("%w by the user", queue.ErrPaused)

// ErrYield, as the cause of the context a job runs under, stops the job
// for now rather than pausing it: it goes back to queued, to run again
// when its face lets it (the schedule's window ended, a new limit). Any
// other end of the context (Ctrl-C, the window closing) pauses it.
var ErrYield = errors.New("the runner stops for now")

// classify turns a download's error about the destination into a pause.
// The engine's errors already name the file.
func classify(dest string, err error) error {
	if errors.Is(err, errUserPaused) {
		return err
	}
	return destProblem(dest, err)
}

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
// connection limit reaches the running downloads within about a second,
// at once after SettingsChanged, and a download that starts starts under
// the settings of that moment.
// Run and RunJob may be called from several goroutines, each on its own
// jobs; Live may be called from any goroutine meanwhile. Only the queue's
// owner (Queue.Owner) may run jobs.
type Runner struct {
	Queue *queue.Queue
	// Client downloads the files; nil makes one from the queue's queue.Settings
	// (queue.Settings.Client) when the first file starts, kept for the Runner's
	// life.
	Client *engine.Client
	// Locations are the user's countries, most preferred first; nil takes
	// them from the queue's settings.
	Locations []string
	// Torrent runs the jobs whose files come from a torrent (torrent.go);
	// nil makes the process's one client from the settings and
	// TorrentOptions when first needed (TorrentClient).
	Torrent *torrent.Client
	// TorrentOptions are the face's BitTorrent choices over the settings.
	TorrentOptions TorrentOptions
	tor            torrentLive
	// RequireSignature fails a file unless a key of the state folder's
	// keyring signed it (it stays NAME.part); a bad signature fails it
	// either way.
	RequireSignature bool
	// RetryFor bounds how long a file waits for the network while every
	// mirror fails with temporary errors (0: for ever, as a queue job
	// waits).
	RetryFor time.Duration
	// Observer, when not nil, is told of each file a job's run downloads
	// over HTTP or FTP as get's observer is: Start, Progress once its
	// Interval (at least once a second), Result with the file's error,
	// then what checking its signature found. A torrent job is one
	// FileRun (Torrent set): Start, Progress with the swarm's snapshot,
	// and Result when it completes or stops. Its FileRuns carry the job
	// (Queued). It is told from the jobs' goroutines; for progress at a
	// display's own rate, read Live.
	Observer Observer
	// Parity is a parity set named for a plain link's file (braid get's
	// --par2), over the sets a job's document lists: the file is checked
	// against the set's hash of it and mended from it.
	Parity *Parity
	// RequireHash fails a file that no published hash could check
	// (ErrNotVerified), as get's --require-hash does.
	RequireHash bool
	// ActionEnded, when not nil, is called when a job's action for when it
	// is done has ended and what went wrong is recorded (whendone.go), so a
	// face that shows the note reads the queue again. It comes from the
	// action's goroutine, after the run that finished the job.
	ActionEnded func(id int64)
	// SyncOptions are the face's choices for the sync jobs it runs (Jobs,
	// Delete; runSync sets the rest).
	SyncOptions SyncOptions
	// Jobs is the most jobs Run runs at once; 0 takes the queue's setting
	// (queue.Settings.Jobs). Either way a later change of that setting is
	// followed.
	Jobs int

	mu      sync.Mutex // guards what follows
	live    map[int64][]*engine.Download
	jobs    int            // jobs at once now (Run)
	seen    queue.Settings // the settings last applied to Client
	hasSeen bool
	batch   *queue.JournalBatch
	look    chan struct{}             // closed to make the runs look now (letgo.go)
	runs    map[int64][]chan struct{} // job → each closed when its run has ended
	started uint64                    // runs noted so far (Activity)
	syncs   map[int64]*SyncJob        // sync job → its run in hand or last (LiveSync)

	// claimed, when not nil, is called by RunJob once the job is
	// claimed, before its run begins (for tests).
	claimed func(id int64)

	after  actions   // when-done actions under way (whendone.go)
	limits jobLimits // the own limits of the jobs running (joblimit.go)
}

// Live returns the engine's download of a file job id is on now, so a
// display can read its Snapshot (or SnapshotInto) at its own rate without
// waiting for the Observer; false when the runner is not downloading a file
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

// UseClient makes c the Client of the runs from now on, for a face that
// makes a new one when its limits change (a Client's limits are fixed
// once it has started a download). Call it between runs.
func (r *Runner) UseClient(c *engine.Client) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.Client, r.hasSeen = c, false
}

// useClient is UseClient for a client made from the settings made: the
// settings changed since then are applied to it when the next download
// starts (client), not taken for its own.
func (r *Runner) useClient(c *engine.Client, made queue.Settings) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.Client, r.seen, r.hasSeen = c, made, true
}

// ClientNow is the Client the runner downloads with now; nil before it
// made or was given one. Safe for concurrent use.
func (r *Runner) ClientNow() *engine.Client {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.Client
}

// client is the Client to download with, the settings changed since the
// last look applied to it first (follow), so that a download starting now
// starts under the limits in force rather than a second later.
func (r *Runner) client() (*engine.Client, error) {
	s, err := settingsInForce(r.Queue)
	r.mu.Lock()
	defer r.mu.Unlock()
	if err != nil {
		if r.Client != nil {
			return r.Client, nil // the read is tried again at the next look
		}
		return nil, err
	}
	if r.Client == nil {
		r.Client = NewClient(s)
		r.seen, r.hasSeen = s, true
	}
	r.applyLocked(s)
	return r.Client, nil
}

// openNet opens job id's logins, cookies and headers; nil when it has
// none. A secret that is gone (kept for another session) pauses the job
// with a sentence rather than sending requests the server will refuse.
func (r *Runner) openNet(id int64) (*netconf.Session, error) {
	s, ok, lost, err := r.Queue.Net(id)
	if err != nil || !ok {
		return nil, err
	}
	if lost {
		return nil, queue.SecretLost(id)
	}
	ss, err := s.Open()
	if err != nil {
		return nil, fmt.Errorf("job %d: %w", id, err)
	}
	return ss, nil
}

// httpClientOf is the HTTP client that reads job id's documents (its
// origin, a dynamic metalink): the Client's proxy route wearing the job's
// logins, cookies and headers. nil (the shared client) when the Client
// cannot be made.
func (r *Runner) httpClientOf(id int64) *http.Client {
	ss, _ := r.openNet(id) // a lost login: the shared client
	return r.httpClientWith(ss)
}

// ReadOptions are how the runner reads a source now: through its client's
// network (the proxy setting in force), as its runs do. Before a Service
// has given it a client, Service.ReadOptions says it better.
func (r *Runner) ReadOptions() ResolveOptions {
	c, err := r.client()
	if err != nil {
		return ResolveOptions{} // the transport's defaults
	}
	return ReadThrough(c, nil)
}

// httpClientWith is httpClientOf for a job whose settings ss are open
// (nil: none).
func (r *Runner) httpClientWith(ss *netconf.Session) *http.Client {
	c, err := r.client()
	if err != nil {
		return nil
	}
	return ss.Client(c.HTTPClient())
}

// journal is the journal a job's files record their pieces in: one batch
// for all the runner's files, one transaction per round.
func (r *Runner) journal(job int64) engine.Journal { return r.batchOf().Journal(job) }

func (r *Runner) batchOf() *queue.JournalBatch {
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
	s, err := settingsInForce(r.Queue) // "Slow" holds, as at the run's start
	if err != nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.applyLocked(s)
}

// applyLocked applies the settings s in force now, where they differ from
// the last ones seen, to the Client and to the number of jobs at once.
// The first settings seen are the Client's own. Called with r.mu held.
func (r *Runner) applyLocked(s queue.Settings) {
	if !r.hasSeen {
		r.seen, r.hasSeen = s, true
		return
	}
	if r.Client != nil {
		applyChanges(r.Client, r.seen, s)
	}
	if s.Jobs != r.seen.Jobs {
		r.jobs = s.Jobs
	}
	r.seen = s
}

// SettingsChanged applies the queue's settings to the Client and the jobs
// running now, at once rather than at the runner's next look (about a
// second later): for a face that has just changed them in this process,
// so a lowered speed limit holds from that moment. Safe for concurrent
// use.
func (r *Runner) SettingsChanged() { r.follow() }

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
// jobs in hand are paused with their progress kept (back to queued when
// ctx's cause is ErrYield), and Run returns ctx's error once they have
// stopped.
func (r *Runner) Run(ctx context.Context) error {
	if !r.Queue.TryOwn() {
		return fmt.Errorf("run the queue: %w", queue.ErrNotOwner)
	}
	r.seedOnce() // the torrents that seeded when the queue last ran
	return r.runAll(ctx, r.Queue.NextQueued, nil, nil)
}

// RunJobs runs the jobs sent on ids, in the order sent, as they come, up
// to Jobs at once, as Run runs the queue's, until ids is closed and they
// have ended: the jobs a face adds or finds (braid get, which adds its
// next source while the first ones run). It takes them whatever state
// they rest in (queued, paused, failed, or done, to fetch again a file
// that went missing), but not from another run. It returns as Run does,
// with the error of a job another run holds among the others. It runs
// them even when another process owns the queue: each claim is atomic,
// so no job runs twice.
func (r *Runner) RunJobs(ctx context.Context, ids <-chan int64) error {
	var waiting []int64 // sent, not started yet
	next := func(map[int64]bool) (int64, bool, error) {
		if len(waiting) == 0 {
			return 0, false, nil
		}
		id := waiting[0]
		waiting = waiting[1:]
		return id, true, nil
	}
	arrived := func(id int64) { waiting = append(waiting, id) }
	return r.runAll(ctx, next, ids, arrived, queue.Queued, queue.Paused, queue.Failed, queue.Done)
}

// runAll runs the jobs next gives (given the jobs running), up to Jobs at
// once, claiming each from the states from (RunJob's claim). With more
// (not nil) next has jobs to give as they arrive on it (told to arrived),
// and runAll goes on until more is closed.
func (r *Runner) runAll(ctx context.Context, next func(running map[int64]bool) (int64, bool, error),
	more <-chan int64, arrived func(int64), from ...queue.State) error {
	if _, err := r.client(); err != nil {
		return err
	}
	r.mu.Lock()
	r.jobs = r.Jobs
	if r.jobs <= 0 {
		r.jobs = cmp.Or(r.seen.Jobs, queue.DefaultJobs)
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
			id, ok, err := next(running)
			if err != nil {
				stop = err
				failed = append(failed, err)
				break
			}
			if !ok {
				break
			}
			running[id] = true
			go func() { ends <- ended{id, r.runJob(ctx, id, from...)} }()
		}
		if len(running) == 0 && (more == nil || stop != nil || ctx.Err() != nil) {
			if err := ctx.Err(); err != nil {
				failed = append(failed, err)
			}
			return errors.Join(failed...)
		}
		var quit <-chan struct{} // waiting for more with none running: ctx's end
		if len(running) == 0 {
			quit = ctx.Done()
		}
		select {
		case id, ok := <-more:
			if !ok {
				more = nil
				continue
			}
			arrived(id)
		case <-quit:
		case e := <-ends:
			delete(running, e.id)
			switch {
			case e.err == nil, errors.Is(e.err, errUserPaused):
			case ctx.Err() != nil && errors.Is(e.err, ctx.Err()):
				// Interrupted with the others; Run reports ctx's error once.
			case errors.Is(e.err, queue.ErrNotOwner):
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

// RunJob runs one queued job to its end: nil when every selected file is
// verified at its final name (a done job returns nil at once). A job that
// is not queued is queue.ErrState; claiming it is atomic in the queue, so
// two processes never run one job. When ctx ends the job is paused
// (queued again when ctx's cause is ErrYield) and the error wraps ctx's;
// when the job is paused meanwhile, or Braid pauses it (destination gone
// or read-only, disk full), the error wraps queue.ErrPaused.
func (r *Runner) RunJob(ctx context.Context, id int64) error {
	return r.runJob(ctx, id)
}

// runJob is RunJob, claiming the job from the states from (queue.Claim;
// none: queued); a done job is run only when from has Done.
func (r *Runner) runJob(ctx context.Context, id int64, from ...queue.State) error {
	q := r.Queue
	j, err := q.Get(id)
	if err != nil {
		return err
	}
	if j.State == queue.Done && !slices.Contains(from, queue.Done) {
		return nil
	}
	// The run is noted before the claim, so that from the moment the
	// queue says the job runs a LetGo waits for its run: noted after it,
	// a pause in between let go of nothing, the face showed the job
	// paused, and the run then started its download anyway.
	defer r.startRun(id)()
	ok, err := q.Claim(id, from...)
	if err != nil {
		return err
	}
	if !ok {
		s, _ := q.StateOf(id)
		if s == queue.Running {
			return fmt.Errorf("job %d (%s): another run has it: %w", id, queue.Redact(j.Source), queue.ErrState)
		}
		return fmt.Errorf("run job %d: %w: it is %s", id, queue.ErrState, s)
	}
	r.noteClaimed()
	if r.claimed != nil {
		r.claimed(id)
	}
	j.State = queue.Running
	return r.settle(ctx, j, r.run(ctx, j, len(from) > 0))
}

// settle records how a run ended.
func (r *Runner) settle(ctx context.Context, j queue.Job, err error) error {
	q := r.Queue
	switch {
	case err == nil:
		w, err := q.Finish(j.ID)
		if err != nil {
			return err
		}
		r.whenDone(j.ID, w)
		return nil
	case errors.Is(err, errUserPaused):
		return fmt.Errorf("job %d: %w", j.ID, err)
	case errors.Is(context.Cause(ctx), ErrYield):
		// Stopped for now by its face: runnable again exactly where the
		// journal says.
		if dbErr := q.Requeue(j.ID); dbErr != nil {
			return errors.Join(fmt.Errorf("job %d: %w", j.ID, err), dbErr)
		}
		return fmt.Errorf("job %d: %w", j.ID, err)
	case ctx.Err() != nil:
		// Interrupted (Ctrl-C, the window closing): paused, whichever
		// face ran it, with its progress exactly where the journal says.
		if dbErr := q.Pause(j.ID, ""); dbErr != nil {
			return errors.Join(fmt.Errorf("job %d: %w", j.ID, err), dbErr)
		}
		return fmt.Errorf("job %d: %w", j.ID, err)
	}
	if reason, ok := queue.PauseReason(err); ok {
		if dbErr := q.Pause(j.ID, reason); dbErr != nil {
			return errors.Join(err, dbErr)
		}
		return fmt.Errorf("job %d: %w", j.ID, err)
	}
	if dbErr := q.Fail(j.ID, err); dbErr != nil {
		return errors.Join(err, dbErr)
	}
	return fmt.Errorf("job %d: %w", j.ID, err)
}

// run runs job j. every (RunJobs: a face that asked for these jobs and
// tells of each, braid get) has the Observer told of a selected file that
// an earlier run left verified too, and of an error that ends the run
// before its files start.
func (r *Runner) run(ctx context.Context, j queue.Job, every bool) error {
	early := func(err error) error {
		if every && err != nil && r.Observer != nil && ctx.Err() == nil {
			r.Observer.Result(Result{Source: j.Source, Err: err})
		}
		return err
	}
	q := r.Queue
	if err := prepareDest(j); err != nil {
		return early(err)
	}
	if j.Sync {
		return r.runSync(ctx, j) // it tells its own outcomes, file by file
	}
	if err := r.refreshStale(ctx, &j); err != nil {
		return early(err)
	}
	_, release := r.holdLimit(j.ID) // the job's own speed limit
	defer release()
	if unreached(j) {
		if err := r.reach(ctx, &j); err != nil {
			return early(err)
		}
	}
	// A member of an archive (its archive may come from a torrent's web
	// seeds: the member job reads it through them, not the swarm).
	if j.Member != nil {
		return r.runMember(ctx, j, *j.Member)
	}
	if src, ok := torrentSource(j); ok {
		return r.runTorrent(ctx, j, src)
	}
	locs := r.locations()
	client, err := r.client()
	if err != nil {
		return early(err)
	}
	root, err := os.OpenRoot(j.Dest)
	if err != nil {
		return early(destProblem(j.Dest, err))
	}
	defer root.Close()
	var todo []queue.File
	for _, f := range j.Files {
		if !f.Selected {
			continue
		}
		if f.Verified {
			if _, err := root.Stat(filepath.FromSlash(f.Path())); err == nil {
				// Verified at its final name in an earlier run.
				if every && r.Observer != nil {
					r.Observer.Result(kept(j, f))
				}
				continue
			}
			// Verified once but gone since: fetch it again.
			if err := q.SetFile(j.ID, f.Name, queue.Unverified); err != nil {
				return early(err)
			}
		}
		todo = append(todo, f)
	}
	if len(todo) == 0 {
		return nil
	}
	net, err := r.openNet(j.ID)
	if err != nil {
		return early(err)
	}
	jr := r.newJobRun(j)
	jr.client, jr.locs, jr.batch, jr.net = client, locs, len(todo) > 1, net
	return jr.runFiles(ctx, todo)
}

// locations are the user's countries: Locations, or the queue's setting.
func (r *Runner) locations() []string {
	if r.Locations != nil {
		return r.Locations
	}
	if s, err := r.Queue.Settings(); err == nil {
		return s.Countries
	}
	return nil
}

// kept is the Result of file f of job j that an earlier run left verified
// at its name: done, nothing fetched.
func kept(j queue.Job, f queue.File) Result {
	run := &FileRun{Job: j.ID, Queued: &j, Source: j.Source, Name: f.Name, Size: f.Size}
	snap := &engine.Snapshot{Name: f.Name, Size: f.Size, Bytes: f.Size, State: engine.StateDone, VerifiedBy: f.VerifiedBy, SavedAs: f.Path()}
	return Result{Run: run, Source: j.Source, File: f.Name, Snapshot: snap}
}

// newJobRun is a run of job j with its document's files indexed by name.
func (r *Runner) newJobRun(j queue.Job) *jobRun {
	jr := &jobRun{r: r, j: j, docs: make(map[string]int, len(j.Doc.Files)),
		speeds: map[string]float64{}}
	for i, df := range j.Doc.Files {
		jr.docs[df.Name] = i
	}
	if j.Doc != nil {
		jr.parity = metalink.ParitySets(j.Doc.Files)
	}
	return jr
}

// jobRun is one run of a job: its files download side by side, as many at
// once as the Client has connections, and the job stops as a whole when
// it is paused or its destination fails.
type jobRun struct {
	r      *Runner
	j      queue.Job
	client *engine.Client
	locs   []string
	batch  bool                          // more than one file: small ones come whole (Request.Batch)
	docs   map[string]int                // file name → index in j.Doc.Files
	parity map[string]metalink.ParitySet // the document's parity sets, by the file they mend
	net    *netconf.Session              // the job's logins, cookies and headers; nil: none kept

	mu     sync.Mutex         // guards speeds
	speeds map[string]float64 // host → remembered speed, read once per run
	heard  hostSpeeds         // the hosts' speeds heard this run
}

// runFiles downloads todo and returns the first error. A file that fails
// does not stop the others; a pause (by the user, or a destination
// problem) stops them all, keeping their progress.
func (jr *jobRun) runFiles(ctx context.Context, todo []queue.File) error {
	ctx, cancel, end := jr.r.guardJob(ctx, jr.j.ID)
	defer cancel(nil)
	var (
		mu    sync.Mutex // guards first
		first error
	)
	runEach(ctx, len(todo), jr.client.FilesAtOnce(), func(i int) {
		err := jr.runFile(ctx, todo[i])
		if err == nil {
			return
		}
		mu.Lock()
		if first == nil {
			first = err
		}
		mu.Unlock()
		if errors.Is(err, queue.ErrPaused) {
			cancel(err)
		}
	})
	jr.heard.record(jr.r.Queue)
	cause := end()
	if errors.Is(cause, errUserPaused) {
		return errUserPaused
	}
	if _, ok := queue.PauseReason(cause); ok {
		return cause
	}
	return first
}

// guardJob watches job id for its run: the context it returns ends, with
// the cause errUserPaused, when the job is paused or removed elsewhere
// (the window, another braid command), read once a poll interval and at
// once on a LetGo (lookNow); stop ends it with another cause. end stops
// the watch, waits for it and returns the context's cause. A read that
// fails (the database busy for a moment) is tried again on the next tick;
// the run goes on.
func (r *Runner) guardJob(ctx context.Context, id int64) (guarded context.Context, stop context.CancelCauseFunc, end func() error) {
	guarded, stop = context.WithCancelCause(ctx)
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		t := time.NewTicker(pollInterval)
		defer t.Stop()
		for {
			// Taken before the read: a LetGo after it closes this
			// channel, and one before it paused the job before the
			// read. Taken after the read, a LetGo in between was missed
			// until the next tick.
			now := r.lookNow()
			s, err := r.Queue.StateOf(id)
			if errors.Is(err, queue.ErrNotFound) || (err == nil && s != queue.Running) {
				stop(errUserPaused)
				return
			}
			select {
			case <-guarded.Done():
				return
			case <-now:
			case <-t.C:
			}
		}
	}()
	return guarded, stop, func() error {
		cause := context.Cause(guarded)
		stop(nil)
		<-watched
		return cause
	}
}

// runFile downloads one file of the job and marks it verified.
func (jr *jobRun) runFile(ctx context.Context, f queue.File) error {
	return jr.runFileOf(ctx, jr.j, f)
}

// runFileOf is runFile for f of job j as this run began.
func (jr *jobRun) runFileOf(ctx context.Context, j queue.Job, f queue.File) error {
	r, q := jr.r, jr.r.Queue
	mf, err := jr.fileOf(j, f)
	if err != nil {
		return err
	}
	done, err := trustedPieces(ctx, q, j.ID, j.Dest, mf)
	if err != nil {
		return err
	}
	job := func() (*queue.Queue, int64, bool) { return q, j.ID, true }
	req := &engine.Request{
		Dir:        j.Dest,
		File:       mf,
		OriginETag: j.Origin.ETag,
		Referer:    j.Origin.Referer,
		Done:       done,
		SaveAs:     f.SavedAs,
		Journal:    r.journal(j.ID),
		Locations:  jr.locs,
		Batch:      jr.batch,
		RetryFor:   r.RetryFor,
		Net:        jr.net,
		Limiter:    r.jobLimiter(j.ID),
		InOrder:    r.inOrder(j.ID),
		Parity:     jr.parityFor(j, mf),
	}
	if r.Parity != nil {
		// The file checked against the set's hash of it, mended from it.
		req.File = r.Parity.withHash(ctx, req.File, jr.parityFetch(), j.Dest)
		req.Parity = r.Parity.mender(jr.parityFetch(), j.Dest)
	}
	var sig signature.Outcome
	req.Check = signatureCheck(Keyring(q), &req.File, r.RequireSignature, job, &sig)
	var refresh func() (bool, error)
	if j.Doc != nil && j.Doc.Dynamic {
		refresh = func() (bool, error) { return jr.refreshFile(ctx, &j, req) }
	}
	w := watching{
		every: pollInterval,
		job:   job,
		live:  j.ID,
		heard: jr.heard.heard,
	}
	o := r.Observer
	var run *FileRun
	if o != nil {
		run = &FileRun{Job: j.ID, Queued: &j, Source: j.Source, Name: mf.Name, Size: mf.Size, Mirrors: len(mf.URLs)}
		w.every = min(w.every, o.Interval())
		w.begin = func(*engine.Snapshot) { o.Start(run) }
		w.tick = func(s *engine.Snapshot) { o.Progress(run, Progress{Snapshot: s}) }
	}
	snap, err := r.fetchRefreshing(ctx, jr.client, req, w, refresh)
	err = jr.ended(j, req, &snap, hashRequired(&snap, err, r.RequireHash))
	if o != nil {
		tellEnd(o, Result{Run: run, Source: j.Source, File: run.Name, Snapshot: &snap, Err: err}, sig)
	}
	return err
}

// ended records how req's download of a file of job j ended, and returns
// the file's error as the job's run sees it: a hash mismatch is kept with
// the file, a link that served the job and refuses it now waits for a
// fresh one (LinkExpired), a problem with the destination is a pause
// (classify), and a file that landed is recorded.
func (jr *jobRun) ended(j queue.Job, req *engine.Request, snap *engine.Snapshot, err error) error {
	q := jr.r.Queue
	name := req.File.Name // a new version may have a new name
	if err != nil && snap.SavedAs != "" && snap.SavedAs != name {
		// Where a renamed download's .part is, for the next run to resume.
		if dbErr := q.SetFile(j.ID, name, queue.SavedAs(snap.SavedAs)); dbErr != nil {
			return errors.Join(err, dbErr)
		}
	}
	if errors.Is(err, engine.ErrHashMismatch) {
		if dbErr := q.SetFile(j.ID, name, queue.Mismatched); dbErr != nil {
			return errors.Join(err, dbErr)
		}
	}
	if linkExpired(err, (req.Done != nil && req.Done.Count() > 0) || snap.Bytes > 0) {
		// A link that served this job refuses it now: a signed link
		// expired. The job waits for a fresh one (Relink).
		return LinkExpired(j.ID, err)
	}
	if err != nil {
		return classify(j.Dest, err)
	}
	if jr.batch {
		// Files of a batch ending together share a transaction.
		return jr.r.batchOf().Landed(j.ID, name, snap)
	}
	return q.Landed(j.ID, name, snap)
}

// hostSpeeds are the speeds of mirror hosts heard in the files of one
// job's run; the job records each host's average once, when its files are
// done (record), rather than a write per file and mirror. Safe for
// concurrent use.
type hostSpeeds struct {
	mu   sync.Mutex
	sums map[string][2]float64 // host → sum and count of speeds heard
}

// heard notes a mirror host's speed in one file.
func (h *hostSpeeds) heard(host string, bps float64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.sums == nil {
		h.sums = map[string][2]float64{}
	}
	s := h.sums[host]
	h.sums[host] = [2]float64{s[0] + bps, s[1] + 1}
}

// record stores the speeds heard in q. Failing to store them costs only a
// better start next time, so errors are ignored.
func (h *hostSpeeds) record(q *queue.Queue) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for host, s := range h.sums {
		_ = q.RecordMirrorSpeed(host, s[0]/s[1])
	}
	clear(h.sums)
}

// fileOf is the metalink file to download: the stored document's, with the
// mirrors the queue remembers, ordered by priority, then by the speed they
// had last time (fastest first; mirrors never measured after those that
// were), then by strikes.
func (jr *jobRun) fileOf(j queue.Job, f queue.File) (metalink.File, error) {
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
		// The queue stores no credentials; a link given in this process
		// gets its own back.
		u.URL = jr.r.Queue.Login(m.URL)
		u.Location, u.Priority = m.Location, m.Priority
		bps, err := jr.speed(queue.HostOf(m.URL))
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

// sampleSpeeds adds the speeds of a snapshot's busy mirrors to speeds, by
// host.
func sampleSpeeds(snap *engine.Snapshot, speeds map[string][]float64) {
	for _, m := range snap.Mirrors {
		if m.Conns > 0 && m.Speed > 0 {
			h := queue.HostOf(m.URL)
			speeds[h] = append(speeds[h], float64(m.Speed))
		}
	}
}

// learn passes on what a download taught about its mirrors' speeds, and
// stores their strikes. Failing to store them costs only a better start
// next time, so errors are ignored.
func learn(q *queue.Queue, id int64, snap engine.Snapshot, speeds map[string][]float64, heard func(host string, bps float64)) {
	for _, m := range snap.Mirrors {
		h := queue.HostOf(m.URL)
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
			_ = q.AddStrikes(id, snap.Name, m.URL, m.Strikes)
		}
	}
}

// runEach calls do(i) for i in [0, n), in order, at most k at once, and
// returns when every call has returned. Once ctx ends no new call
// starts. It is the runner's one pool of workers, for a job's files and
// get's sources and files alike.
func runEach(ctx context.Context, n, k int, do func(i int)) {
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		next int
	)
	for range min(n, max(k, 1)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				i := next
				if i == n || ctx.Err() != nil {
					mu.Unlock()
					return
				}
				next++
				mu.Unlock()
				do(i)
			}
		}()
	}
	wg.Wait()
}
