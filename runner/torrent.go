package runner

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"braid/engine"
	"braid/engine/metalink"
	"braid/engine/netconf"
	"braid/engine/redact"
	"braid/engine/torrent"
	"braid/queue"
)

// TorrentOptions are a face's BitTorrent choices for its runner, over the
// queue's settings. The one BitTorrent client of the process is made from
// them and the settings, here and nowhere else (torrentConfig).
type TorrentOptions struct {
	// Settings, when set, are used instead of the queue's (braid get's
	// flags).
	Settings *queue.TorrentSettings
	// NoDHT keeps peer discovery to trackers and PEX.
	NoDHT bool
	// Uploads is an upload budget shared beyond the client; nil: one of
	// the settings' UploadLimit.
	Uploads *engine.Limiter
	// ListenHost is the address to listen on for peers: "" every address,
	// "127.0.0.1" in tests.
	ListenHost string
	// Logger receives the library's logs; nil: slog's default, which is
	// Braid's log.
	Logger *slog.Logger
}

// torrentLive is the Runner's BitTorrent side: the client it made, the
// torrent jobs downloading now and the finished ones seeding, by job.
type torrentLive struct {
	mu      sync.Mutex
	made    *torrent.Client // made by the runner; closed by Close
	running map[int64]*torrent.Job
	seeding map[int64]*torrent.Job // finished jobs seeding on
	// noSeed holds the running jobs whose seeding was stopped before it
	// began (StopSeeding while the run still held the job): the run
	// stops them instead of seeding on. Cleared when the run ends.
	noSeed map[int64]bool
	// stopped are the seeding torrents the user stopped (StopSeeding, a
	// seeding paused in the queue): they do not seed on at the next
	// start, even when Braid quits before their last record is written.
	stopped map[*torrent.Job]bool
	// life is what seeding torrents run under: it ends with Close, not
	// with the run that downloaded them.
	life context.Context
	end  context.CancelFunc
	// watch counts the goroutines recording what the seeding torrents
	// seeded (torrentseed.go): Close waits for their last record.
	watch sync.WaitGroup
	// again makes SeedAgain one at a time (the window's start and its
	// first Run may both call it).
	again sync.Mutex
	// firstRun makes Run seed on only at the runner's first run: the
	// window and the RPC server call Run again at every change.
	firstRun sync.Once
	// notAgain holds why the jobs SeedAgain could not seed on did not.
	notAgain map[int64]error
}

// LiveTorrent returns the torrent job that job id runs or seeds now, so a
// display can read its Snapshot at its own rate; false when the runner
// holds no torrent for that job. Any number of torrent jobs are live at
// once, each with its own snapshot. Safe for concurrent use.
func (r *Runner) LiveTorrent(id int64) (*torrent.Job, bool) {
	r.tor.mu.Lock()
	defer r.tor.mu.Unlock()
	if j, ok := r.tor.running[id]; ok {
		return j, true
	}
	if j, ok := r.tor.seeding[id]; ok {
		select {
		case <-j.Done():
			delete(r.tor.seeding, id)
		default:
		}
		return j, true // its final snapshot, once more
	}
	return nil, false
}

// Seeding returns the jobs whose torrents seed on after their download.
// Safe for concurrent use.
func (r *Runner) Seeding() []int64 {
	r.tor.mu.Lock()
	defer r.tor.mu.Unlock()
	ids := make([]int64, 0, len(r.tor.seeding))
	for id, j := range r.tor.seeding {
		select {
		case <-j.Done():
			delete(r.tor.seeding, id)
		default:
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return ids
}

// seedingNow returns the torrents seeding now, by job. A caller that
// decides on a reading of the queue stops one through stopSeedingOf, so
// that a job resumed meanwhile (a new run, a new torrent) is left alone.
func (r *Runner) seedingNow() map[int64]*torrent.Job {
	r.tor.mu.Lock()
	defer r.tor.mu.Unlock()
	return maps.Clone(r.tor.seeding)
}

// stopSeedingOf stops job id's seeding if tj is still what seeds it. It
// never marks a running job (StopSeeding does): a decision read before
// the job was resumed must not keep its new run from seeding.
func (r *Runner) stopSeedingOf(id int64, tj *torrent.Job) {
	r.tor.mu.Lock()
	still := r.tor.seeding[id] == tj
	if still {
		delete(r.tor.seeding, id)
		r.tor.stopLocked(tj)
	}
	r.tor.mu.Unlock()
	if still {
		tj.Stop()
	}
}

// Seed waits until every torrent seeding now has reached its seed ratio
// or time, telling the Observer how each stands at its Interval; when ctx
// ends first (Ctrl-C) it stops them, their bytes kept (braid get). It is
// the service's wait (Service.WaitSeeding), so a seeding paused in the
// queue meanwhile stops too.
func (r *Runner) Seed(ctx context.Context) {
	every, report := time.Hour, func() {}
	if r.Observer != nil {
		runs := map[int64]*FileRun{}
		every, report = r.Observer.Interval(), func() {
			for id, tj := range r.seedingNow() {
				s := tj.Snapshot()
				run := runs[id]
				if run == nil {
					run = &FileRun{Job: id, Name: s.Name, Size: s.Size, Mirrors: len(s.Mirrors), Torrent: true}
					runs[id] = run
				}
				r.Observer.Progress(run, Progress{Snapshot: &s.Snapshot, Torrent: &s})
			}
		}
	}
	NewService(r).WaitSeeding(ctx, every, report)
	if ctx.Err() != nil {
		for _, id := range r.Seeding() {
			r.StopSeeding(id)
		}
	}
}

// StopSeeding stops job id's seeding, if it seeds (a done job removed,
// or the user's "stop"). Safe for concurrent use.
func (r *Runner) StopSeeding(id int64) {
	r.tor.mu.Lock()
	j := r.tor.seeding[id]
	delete(r.tor.seeding, id)
	if j != nil {
		r.tor.stopLocked(j)
	}
	if _, running := r.tor.running[id]; j == nil && running {
		// Its files may be done and the row show it seeding while the
		// run has yet to hand it over to seeding: it must not begin.
		if r.tor.noSeed == nil {
			r.tor.noSeed = map[int64]bool{}
		}
		r.tor.noSeed[id] = true
	}
	r.tor.mu.Unlock()
	if j != nil {
		j.Stop()
	}
}

// stopLocked notes that the user stopped tj's seeding. Called with mu held.
func (t *torrentLive) stopLocked(tj *torrent.Job) {
	if t.stopped == nil {
		t.stopped = map[*torrent.Job]bool{}
	}
	t.stopped[tj] = true
}

// userStopped reports whether the user stopped tj's seeding, and forgets
// it.
func (t *torrentLive) userStopped(tj *torrent.Job) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	stopped := t.stopped[tj]
	delete(t.stopped, tj)
	return stopped
}

// Close stops the torrents seeding and closes the BitTorrent client the
// runner made (none when Runner.Torrent was given). Call it when the
// runner is done for good, after its last Run.
func (r *Runner) Close() error {
	r.tor.mu.Lock()
	c := r.tor.made
	r.tor.made = nil
	seeding := r.tor.seeding
	r.tor.seeding = nil
	if r.tor.end != nil {
		r.tor.end()
	}
	r.tor.mu.Unlock()
	for _, j := range seeding {
		j.Stop()
	}
	// What they seeded, and that they seed on at the next start, is
	// recorded before the queue closes.
	r.tor.watch.Wait()
	if c == nil {
		return nil
	}
	return c.Close()
}

// TorrentClient is the process's one BitTorrent client, through which
// every torrent job runs and a magnet's metadata is fetched for the
// picker: Runner.Torrent when given, else made on first use from the
// settings and TorrentOptions, and kept until Close. Safe for concurrent
// use.
func (r *Runner) TorrentClient() (*torrent.Client, error) {
	if r.Torrent != nil {
		return r.Torrent, nil
	}
	// The HTTP engine's limit holds for torrents too: one budget.
	hc, err := r.client()
	if err != nil {
		return nil, err
	}
	r.tor.mu.Lock()
	defer r.tor.mu.Unlock()
	if r.tor.made != nil {
		return r.tor.made, nil
	}
	ts, err := r.torrentSettings()
	if err != nil {
		return nil, err
	}
	r.tor.made = torrent.NewClient(torrentConfig(ts, r.TorrentOptions, hc))
	return r.tor.made, nil
}

// torrentConfig is the one configuration of Braid's BitTorrent client.
func torrentConfig(ts queue.TorrentSettings, o TorrentOptions, hc *engine.Client) torrent.Config {
	c := torrent.Config{
		ListenHost: o.ListenHost,
		ListenPort: ts.Port,
		DHT:        ts.Discovery && !o.NoDHT,
		PEX:        ts.Discovery,
		Trackers:   ts.Discovery,
		// --limit and the speed setting hold for HTTP, FTP and
		// BitTorrent together.
		Downloads:   hc.DownloadLimiter(),
		UploadLimit: ts.UploadLimit,
		Uploads:     o.Uploads,
		Logger:      o.Logger,
		HTTP:        hc.HTTP,
		// The HTTP engine's route: its proxy setting, else the
		// environment's, as for HTTP and FTP.
		Network: cmp.Or(hc.Network, netconf.Default()),
	}
	return c
}

// torrentSettings are the BitTorrent settings the runner goes by.
func (r *Runner) torrentSettings() (queue.TorrentSettings, error) {
	if s := r.TorrentOptions.Settings; s != nil {
		return *s, nil
	}
	st, err := r.Queue.Settings()
	return st.Torrent, err
}

// seedLife is the context seeding torrents run under, made on first use.
func (r *Runner) seedLife() context.Context {
	r.tor.mu.Lock()
	defer r.tor.mu.Unlock()
	if r.tor.life == nil {
		r.tor.life, r.tor.end = context.WithCancel(context.Background())
	}
	return r.tor.life
}

func (r *Runner) setRunning(id int64, tj *torrent.Job) {
	r.tor.mu.Lock()
	defer r.tor.mu.Unlock()
	if tj == nil {
		delete(r.tor.running, id)
		delete(r.tor.noSeed, id)
		return
	}
	if r.tor.running == nil {
		r.tor.running = map[int64]*torrent.Job{}
	}
	r.tor.running[id] = tj
}

// IsTorrent reports whether job j runs as a torrent (a .torrent, a
// magnet link, or a metalink whose files come through one).
func IsTorrent(j queue.Job) bool {
	_, ok := torrentSource(j)
	return ok
}

// torrentSource returns the torrent metaurl that job j's selected files
// come from, if they all come from one.
func torrentSource(j queue.Job) (metalink.MetaURL, bool) {
	var src metalink.MetaURL
	found := false
	for _, f := range j.Files {
		if !f.Selected {
			continue
		}
		df, ok := docFile(j, f.Name)
		if !ok || !torrent.HasTorrent(df) {
			return src, false
		}
		for _, mu := range df.MetaURLs {
			if mu.MediaType != "torrent" {
				continue
			}
			if found && mu.URL != src.URL {
				return src, false
			}
			src, found = mu, true
			break
		}
	}
	return src, found
}

func docFile(j queue.Job, name string) (metalink.File, bool) {
	if j.Doc == nil { // a job from List: no document loaded
		return metalink.File{}, false
	}
	for _, f := range j.Doc.Files {
		if f.Name == name {
			return f, true
		}
	}
	return metalink.File{}, false
}

// runTorrent runs a job whose files come from a torrent: its selection,
// the queue's piece completion, seeding by the settings, pause and remove
// as for any job.
func (r *Runner) runTorrent(ctx context.Context, j queue.Job, src metalink.MetaURL) (err error) {
	q := r.Queue
	var selected []string
	var one metalink.File
	for _, f := range j.Files {
		if f.Selected {
			selected = append(selected, f.Name)
			one, _ = docFile(j, f.Name)
		}
	}
	// The torrent as it was resolved when the job was added, or by an
	// earlier run: the .torrent file may be gone since, and a magnet's
	// metadata need not come from peers again.
	spec, stored, err := q.TorrentSpec(j.ID)
	if err != nil {
		return err
	}
	if !stored {
		// A metalink's .torrent comes as its mirrors do: through the
		// proxy, with the job's logins, cookies and headers.
		hc := r.httpClientOf(j.ID)
		if len(selected) == 1 && (len(one.URLs) > 0 || len(one.Hashes) > 0) && src.Name == "" {
			// A metalink file with its own mirrors and hashes.
			spec, err = torrent.FromMetalink(ctx, one, hc)
		} else {
			if spec, err = torrent.Resolve(ctx, src.URL, hc); err != nil {
				err = fmt.Errorf("the torrent %s: %w", queue.Redact(src.URL), err)
			}
		}
		if err != nil {
			return err
		}
		if err := q.SetTorrentSpec(j.ID, spec); err != nil {
			return err
		}
	}
	// A magnet's metadata, once a peer sent it, is checked (it must be
	// the link's torrent) and stored for the next run.
	haveInfo := spec.InfoBytes != nil
	keepInfo := func(tj *torrent.Job) error {
		if haveInfo {
			return nil
		}
		s, err := tj.Spec()
		if err != nil {
			return err
		}
		if s == nil {
			return nil
		}
		haveInfo = true
		if err := q.SetTorrentSpec(j.ID, s); err != nil {
			return err
		}
		return r.keepFiles(&j, s)
	}
	comp, err := q.TorrentPieces(j.Dest)
	if err != nil {
		return err
	}
	client, err := r.TorrentClient()
	if err != nil {
		return err
	}
	ts, err := r.torrentSettings()
	if err != nil {
		return err
	}
	prior, err := q.Seeded(j.ID)
	if err != nil {
		return err
	}
	high := map[string]bool{}
	for _, f := range j.Files {
		high[f.Name] = f.High
	}
	// The job runs under the runner's life, not this run's: once complete
	// it may seed on after RunJob returns, until its ratio, Close or
	// StopSeeding. While it downloads, the run's end stops it.
	tj, err := client.Start(r.seedLife(), &torrent.Request{
		Dir: j.Dest, Spec: spec, Completion: comp,
		SeedRatio: ts.SeedRatio, SeedTime: ts.SeedTime,
		Seeded:  torrent.Seeded{Uploaded: prior.Uploaded, Time: prior.Time},
		High:    slices.Collect(maps.Keys(high)),
		Limiter: r.jobLimiter(j.ID),
		Select:  selectNamed(selected),
		InOrder: r.inOrder(j.ID),
	})
	if err != nil {
		return err
	}
	r.setRunning(j.ID, tj)
	defer r.setRunning(j.ID, nil)
	// The Observer hears of the job as one FileRun, at its own Interval
	// (observed) apart from the queue's polls (tick).
	o := r.Observer
	var run *FileRun
	var observed <-chan time.Time
	var snap torrent.Snapshot // at its end, once it completed
	completed := false
	told := map[string]string{} // tracker → the failure told of it last
	if o != nil {
		run = &FileRun{Job: j.ID, Queued: &j, Source: j.Source, Name: spec.Name, Size: -1, Mirrors: len(spec.WebSeeds), Torrent: true}
		o.Start(run)
		every := time.NewTicker(o.Interval())
		defer every.Stop()
		observed = every.C
		defer func() {
			switch {
			case !completed: // stopped or failed before it completed
				snap = tj.Snapshot()
			case err == nil && snap.State < engine.StateDone:
				// Every selected piece is verified and its files are
				// recorded done, though the swarm's phase may not have
				// moved on yet when Complete closed.
				snap.State = engine.StateDone
			}
			o.Result(Result{Run: run, Source: j.Source, File: run.Name, Snapshot: &snap.Snapshot, Torrent: &snap, Err: err})
		}()
	}
	seeds := false
	defer func() {
		if !seeds {
			// Paused, stopped or failed before it finished: what it sent
			// meanwhile counts towards its ratio.
			_ = r.recordSeeded(j.ID, tj, false)
		}
	}()

	// letGo stops the torrent when the queue no longer has the job
	// running (paused or removed elsewhere), keeping its bytes.
	letGo := func() bool {
		s, err := q.StateOf(j.ID)
		if errors.Is(err, queue.ErrNotFound) || (err == nil && s != queue.Running) {
			tj.Stop()
			if err == nil {
				keepTorrentBytes(q, j.ID, tj.Snapshot())
			}
			return true
		}
		return false
	}
	tick := time.NewTicker(pollInterval)
	defer tick.Stop()
	// The look channel is taken before each read of the state: a LetGo
	// after it closes the channel, one before it paused the job before
	// the read (a LetGo before the loop is read here at once).
	now := r.lookNow()
	if letGo() {
		return errUserPaused
	}
loop:
	for {
		select {
		case <-tj.Complete():
			break loop
		case <-tj.Done():
			// Ended, and Complete is closed too: when the loop was busy
			// while both closed, Go may pick either. Done without an
			// error is a finished job that does not seed.
			if err := tj.Err(); err != nil {
				return classify(j.Dest, err)
			}
			break loop
		case <-ctx.Done():
			tj.Stop()
			keepTorrentBytes(q, j.ID, tj.Snapshot())
			return ctx.Err()
		case <-now: // a face paused a job here (LetGo)
			now = r.lookNow()
			if letGo() {
				return errUserPaused
			}
		case <-observed:
			s := tj.Snapshot()
			o.Progress(run, Progress{Snapshot: &s.Snapshot, Torrent: &s})
			if s.Peers == 0 {
				// Reading the trackers writes out the client's whole
				// status: only a swarm that found nobody pays for it.
				tellTrackers(o, j.Source, spec.Name, tj.Trackers(), told)
			}
		case <-tick.C:
			if err := keepInfo(tj); err != nil {
				tj.Stop()
				return err
			}
			now = r.lookNow()
			if letGo() {
				return errUserPaused
			}
		}
	}
	snap, completed = tj.Snapshot(), true
	if err := keepInfo(tj); err != nil {
		tj.Stop()
		return err
	}
	select {
	case <-tj.Done():
		if err := tj.Err(); err != nil {
			return classify(j.Dest, err)
		}
	default:
	}
	// Seeding on, or done already (no seeding asked): either way
	// LiveTorrent gives its last snapshot once more.
	r.tor.mu.Lock()
	stopped := r.tor.noSeed[j.ID]
	if !stopped {
		if r.tor.seeding == nil {
			r.tor.seeding = map[int64]*torrent.Job{}
		}
		r.tor.seeding[j.ID] = tj
	}
	r.tor.mu.Unlock()
	if stopped {
		// Removed or stopped by the user as it finished: done, not seeding.
		tj.Stop()
	} else {
		seeds = true
		r.watchSeeding(j.ID, tj)
	}
	selected = fetched(j, selected, tj.Wanted())
	for _, name := range selected {
		landed := engine.Snapshot{State: engine.StateDone, VerifiedBy: snap.VerifiedBy, SavedAs: name, Created: snap.Created}
		if err := q.Landed(j.ID, name, &landed); err != nil {
			return err
		}
	}
	return nil
}

// keepFiles gives job j, when it still has the one file a magnet link
// stands for until its metadata comes (its size not known), the files the
// torrent's metadata names, with their sizes (takeFiles).
func (r *Runner) keepFiles(j *queue.Job, spec *torrent.Spec) error {
	if len(j.Files) != 1 || j.Files[0].Size >= 0 {
		return nil
	}
	doc, err := torrent.Document(spec, j.Source)
	if err != nil {
		return err
	}
	return r.takeFiles(j, doc.Files, j.Origin)
}

// keepTorrentBytes records, for a torrent job that stops before it is
// done (a pause, a quit), the bytes each unfinished file holds, so the row
// and `queue list` show its progress until it runs again: the torrent's
// own piece record (torrent_pieces) is per torrent, not per file of the
// job. snap is taken after the job stopped: a piece may still complete,
// and be recorded, until then, and the bytes shown must not be fewer than
// the pieces recorded. A file the job does not know by that name is left
// alone.
func keepTorrentBytes(q *queue.Queue, id int64, snap torrent.Snapshot) {
	jl := q.Journal(id)
	for _, f := range snap.Files {
		if f.Selected && !f.Done {
			_ = jl.KeptBytes(f.Name, f.Bytes)
		}
	}
}

// tellTrackers tells o of each tracker that fails with a reason it was
// not told of before (told, by tracker): a swarm that finds no peer
// because its tracker refuses the torrent says why, once. It is called
// while the torrent has no peer.
func tellTrackers(o Observer, source, file string, trackers []torrent.Tracker, told map[string]string) {
	for _, t := range trackers {
		if t.Status != torrent.TrackerFailed || t.Err == "" || told[t.URL] == t.Err {
			continue
		}
		told[t.URL] = t.Err
		why := strings.TrimPrefix(t.Err, "announcing: ") // the library's words for every announce
		o.Note(Note{Kind: NoteTracker, Source: source, File: file,
			Message: fmt.Sprintf("tracker %s: %s", redact.Query(redact.URL(t.URL)), redact.Query(redact.Text(why)))})
	}
}
