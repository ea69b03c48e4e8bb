package torrent

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/anacrolix/torrent"
	"github.com/anacrolix/torrent/types"

	"braid/engine"
	"braid/engine/metalink"
	"braid/engine/piece"
)

// Request is one torrent to download into a folder.
type Request struct {
	// Dir is the download folder; every file of the torrent is written
	// under it, through os.Root.
	Dir  string
	Spec *Spec
	// Completion keeps piece completion between runs; nil keeps it in
	// memory for this run only.
	Completion Completion
	// Select is called once the file list is known (for a magnet link,
	// after its metadata arrived) and returns which files to download, one
	// bool per file. Nil selects every file, or Spec.Only when set. It may
	// block (a window asking the user) until the job's context ends.
	Select func(ctx context.Context, files []File) []bool
	// High names the selected files whose pieces are asked for before
	// the others' (SetPriority's High, from the start).
	High []string
	// InOrder fetches every selected file from its start: only a window
	// of pieces from each file's first missing one is asked for, and a
	// media file's first and last pieces before all (inorder.go). High
	// then makes no difference.
	InOrder bool
	// SeedRatio and SeedTime say how long a finished torrent seeds while
	// the job runs: until it has uploaded SeedRatio times the selected
	// size, or for SeedTime, whichever comes first. Both 0: no seeding.
	SeedRatio float64
	SeedTime  time.Duration
	// Seeded is what earlier runs of the torrent seeded: the ratio and
	// the time count it, and Snapshot's Uploaded and Ratio include it.
	Seeded Seeded
	// Limiter, when set, is this torrent's own download limit, on top of
	// the Client's: every chunk written from a peer or a web seed is paid
	// to it before that connection reads on. Change its rate with SetRate
	// while the torrent runs: nothing restarts. nil: only the Client's.
	Limiter *engine.Limiter
}

// File is one file of a torrent, for a picker.
type File struct {
	Name     string // relative, slash-separated; passed metalink.SafeName
	Size     int64
	Selected bool
	Bytes    int64 // verified bytes on disk
	Done     bool  // at its final name
}

// ErrRunning is returned by Start for a torrent that is already running.
var ErrRunning = errors.New("this torrent is already running")

// Job is one running torrent. Its methods are safe for concurrent use.
type Job struct {
	c        *Client
	req      Request
	comp     Completion
	cancel   context.CancelFunc
	done     chan struct{}
	complete chan struct{}
	compOnce sync.Once

	refused chan error // OpenTorrent refused the torrent
	opened  chan *torrentStorage

	mu       sync.Mutex
	t        *torrent.Torrent
	ts       *torrentStorage
	phase    Phase
	held     string // why the job waits for another program (Snapshot.Held)
	err      error
	start    time.Time
	files    []File
	selected []bool   // per span
	sources  []string // mirrors of the snapshot: "peers", then web seeds
	byHost   map[string]int16
	filler   []int16

	meter rateMeter // every rate the job shows (rates.go)
	// seedFrom and seedTo bound this run's seeding; goal: it ended at its
	// ratio or time (seedgoal.go).
	seedFrom, seedTo time.Time
	goal             bool
}

// Start adds the torrent and runs it until ctx ends, the selected files
// are complete and seeding is over, or it fails. It returns an error only
// when the torrent cannot be added at all.
func (c *Client) Start(ctx context.Context, req *Request) (*Job, error) {
	cl, err := c.client()
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	j := &Job{
		c: c, req: *req, comp: req.Completion, cancel: cancel,
		done:     make(chan struct{}),
		complete: make(chan struct{}),
		refused:  make(chan error, 1),
		opened:   make(chan *torrentStorage, 1),
		start:    time.Now(),
		phase:    PhaseMetadata,
		sources:  []string{sourcePeers},
	}
	if j.comp == nil {
		j.comp = &MemCompletion{}
	}
	if _, ok := cl.Torrent(req.Spec.InfoHash); ok {
		cancel()
		return nil, fmt.Errorf("%s: %w", req.Spec.Name, ErrRunning)
	}
	st := &braidStorage{dir: req.Dir, comp: j.comp, check: j.checkFile, refuse: func(err error) {
		select {
		case j.refused <- err:
		default:
		}
	}, opened: func(ts *torrentStorage) { j.opened <- ts }, lim: req.Limiter, ctx: ctx}
	spec := &torrent.TorrentSpec{
		Trackers:    req.Spec.Trackers,
		DisplayName: req.Spec.Name,
		PeerAddrs:   req.Spec.Peers,
		Sources:     req.Spec.Sources,
	}
	spec.InfoHash = req.Spec.InfoHash
	spec.InfoBytes = req.Spec.InfoBytes
	spec.Storage = st
	t, _, err := cl.AddTorrentSpec(spec)
	if err != nil {
		cancel()
		return nil, fmt.Errorf("%s: %w", req.Spec.Name, err)
	}
	if req.Spec.InfoBytes == nil {
		// A magnet: no piece is fetched until the metadata peers send is
		// checked against the link's info hash (download). anacrolix v1.59.1
		// takes any for a v1 link, and would fill the folder with whatever
		// torrent a peer (or a web seed with it) chose.
		t.DisallowDataDownload()
	}
	c.register(t, j)
	j.t = t
	go j.run(ctx, cl)
	return j, nil
}

// Done is closed when the job has ended.
func (j *Job) Done() <-chan struct{} { return j.done }

// Complete is closed when every selected file is at its final name,
// verified, before seeding starts; or when the job ends, whichever is
// first. A queue can count the job done here and leave it seeding.
func (j *Job) Complete() <-chan struct{} { return j.complete }

// Stop ends the job (a pause, a removal, seeding cut short) and waits for
// it; piece completion is kept.
func (j *Job) Stop() {
	j.cancel()
	<-j.done
}

// Err blocks until the job ends and returns nil when every selected file
// is at its final name, verified; the context's error when it was
// stopped; or why it failed.
func (j *Job) Err() error {
	<-j.done
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.err
}

// Files returns the torrent's files with their progress; nil until the
// metadata is known.
func (j *Job) Files() []File {
	j.mu.Lock()
	defer j.mu.Unlock()
	return append([]File(nil), j.files...)
}

func (j *Job) setPhase(p Phase) {
	j.mu.Lock()
	j.phase = p
	j.mu.Unlock()
}

func (j *Job) run(ctx context.Context, cl *torrent.Client) {
	announced := make(chan struct{})
	go func() {
		defer close(announced)
		announceDHT(ctx, cl, j.t)
	}()
	redialed := make(chan struct{})
	go func() {
		defer close(redialed)
		j.keepDirectPeers(ctx)
	}()
	err := j.download(ctx, cl)
	j.mu.Lock()
	ts := j.ts
	j.mu.Unlock()
	if ts != nil {
		// Recorded now rather than when the library closes the storage,
		// which only logs an error.
		if ferr := ts.flush(); err == nil && ferr != nil {
			err = ferr
		}
	}
	t := j.t
	t.Drop()
	j.c.unregister(t)
	j.mu.Lock()
	switch {
	case err == nil:
		j.phase = PhaseDone
	case ctx.Err() != nil:
		j.phase, err = PhaseCanceled, ctx.Err()
	default:
		j.phase = PhaseFailed
	}
	j.err = err
	j.mu.Unlock()
	j.markComplete()
	j.cancel()
	<-announced
	<-redialed
	close(j.done)
}

// redialEvery is how often a torrent with no peer connection is given its
// direct peers again (keepDirectPeers).
const redialEvery = 5 * time.Second

// keepDirectPeers gives the library the torrent's direct peers (a magnet
// link's x.pe, Spec.Peers) again every redialEvery while the torrent
// downloads with no peer connection. The library dials a peer it was
// given once and forgets it when the dial or the handshake fails: a peer
// that was not up yet, or that answered slowly on a loaded machine, would
// be lost for the torrent's life, and a torrent whose only source is that
// peer would wait for ever. Once the files are complete it stops: a seed
// waits for peers to come to it.
func (j *Job) keepDirectPeers(ctx context.Context) {
	if len(j.req.Spec.Peers) == 0 {
		return
	}
	peers := make([]torrent.PeerInfo, len(j.req.Spec.Peers))
	for i, a := range j.req.Spec.Peers {
		peers[i] = torrent.PeerInfo{Addr: torrent.StringAddr(a), Source: torrent.PeerSourceDirect, Trusted: true}
	}
	tick := time.NewTicker(redialEvery)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-j.complete:
			return
		case <-tick.C:
			if len(j.t.PeerConns()) == 0 {
				j.t.AddPeers(peers)
			}
		}
	}
}

func (j *Job) markComplete() { j.compOnce.Do(func() { close(j.complete) }) }

func (j *Job) download(ctx context.Context, cl *torrent.Client) error {
	t := j.t
	name := j.req.Spec.Name
	var ts *torrentStorage
	select {
	case <-ctx.Done():
		return ctx.Err()
	case err := <-j.refused:
		return fmt.Errorf("%s: refused: %w", nameOr(name, j.req.Spec), err)
	case ts = <-j.opened:
	}
	<-t.GotInfo() // set before the storage is opened, so this does not wait
	if j.req.Spec.InfoBytes == nil {
		if _, err := j.Spec(); err != nil {
			return err
		}
		t.AllowDataDownload()
	}
	info := t.Info()
	name = info.BestName()
	multi := info.IsDir()
	seeds := webSeeds(j.req.Spec.WebSeeds, multi)

	files := t.Files()
	if len(files) != len(ts.spans) {
		return fmt.Errorf("%s: the library lists %d files, the storage %d", name, len(files), len(ts.spans))
	}
	list := make([]File, 0, len(files))
	index := make([]int, 0, len(files)) // span of each listed file
	for i, sp := range ts.spans {
		if !sp.pad {
			list = append(list, File{Name: sp.name, Size: sp.length, Selected: true})
			index = append(index, i)
		}
	}
	if only := j.req.Spec.Only; len(only) > 0 {
		for k := range list {
			list[k].Selected = contains(only, list[k].Name)
		}
	}
	j.mu.Lock()
	j.ts = ts
	j.files = list
	j.filler = make([]int16, info.NumPieces())
	for i := range j.filler {
		j.filler[i] = -1
	}
	j.byHost = map[string]int16{}
	for _, s := range seeds {
		if u := hostOf(s); u != "" {
			if _, ok := j.byHost[u]; !ok {
				j.byHost[u] = int16(len(j.sources))
				j.sources = append(j.sources, s)
			}
		}
	}
	j.mu.Unlock()

	if j.req.Select != nil {
		sel := j.req.Select(ctx, append([]File(nil), list...))
		if ctx.Err() != nil {
			return ctx.Err()
		}
		// j.files holds list, which Snapshot reads under j.mu while
		// Select waits: the choice goes into a copy, published below.
		list = slices.Clone(list)
		for k := range list {
			list[k].Selected = k < len(sel) && sel[k]
		}
	}
	selected := make([]bool, len(ts.spans))
	any := false
	for k, f := range list {
		selected[index[k]] = f.Selected
		any = any || f.Selected
	}
	if !any {
		return fmt.Errorf("%s: no file selected", name)
	}
	j.mu.Lock()
	j.files = list
	j.selected = selected
	j.phase = PhaseDownloading
	j.mu.Unlock()

	t.SetOnWriteChunkError(func(err error) { ts.fail(err) })
	if len(seeds) > 0 {
		// Nothing asks them yet: see nudgeWebSeeds, below.
		t.AddWebSeeds(seeds)
	}
	for i, f := range files {
		switch {
		case selected[i] && contains(j.req.High, ts.spans[i].name):
			f.SetPriority(types.PiecePriorityHigh)
		case selected[i]:
			f.SetPriority(types.PiecePriorityNormal)
		default:
			f.SetPriority(types.PiecePriorityNone)
		}
	}
	for i, sp := range ts.spans {
		if selected[i] && sp.length == 0 {
			if err := ts.finishFile(i); err != nil {
				return err
			}
		}
	}
	if len(seeds) > 0 {
		// The files are wanted now: web seeds start at once, not on the
		// library's next 5-second tick.
		nudgeWebSeeds(cl)
	}

	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	var order *orderer
	if j.req.InOrder {
		order = newOrderer(t, ts)
		order.slide(selected, 0)
	}
	stall := newReplanner(t, ts)
	idle := newIdleWatch(t, j.c.cfg.idleDrop, j.req.Limiter, j.c.down)
	idle.closed = j.c.cfg.idleClosed
	for !j.allFinished() {
		var now time.Time
		select {
		case <-ctx.Done():
			return ctx.Err()
		case err := <-j.refused:
			return err
		case now = <-tick.C:
		}
		if err := ts.failure(); err != nil {
			return err
		}
		held, err := ts.retryHeld()
		if err != nil {
			return err
		}
		j.mu.Lock()
		j.held = held
		j.mu.Unlock()
		stall.check(now)
		idle.check(now)
		if order != nil {
			order.slide(j.selection(), j.rates().down)
		}
	}
	// Before Complete, so whoever it wakes sees the job seeding, or done
	// (its snapshot then says how its files were verified).
	if j.req.SeedRatio > 0 || j.req.SeedTime > 0 {
		j.setPhase(PhaseSeeding)
	} else {
		j.setPhase(PhaseDone)
	}
	j.markComplete()
	return j.seed(ctx, tick)
}

// allFinished reports whether every selected file is at its final name.
func (j *Job) allFinished() bool {
	j.mu.Lock()
	ts, sel := j.ts, j.selected
	j.mu.Unlock()
	for i := range ts.spans {
		if sel[i] && !ts.finished(i) {
			return false
		}
	}
	return true
}

// seed uploads after completion until the ratio or the time is reached.
func (j *Job) seed(ctx context.Context, tick *time.Ticker) error {
	ratio, limit := j.req.SeedRatio, j.req.SeedTime
	if ratio <= 0 && limit <= 0 {
		return nil
	}
	j.seeding(true)
	defer j.seeding(false)
	size := j.selectedSize()
	// Earlier runs count: a torrent seeding again after a restart seeds
	// what is left of its goal.
	prior := j.req.Seeded
	if prior.GoalReached(ratio, limit, size) {
		j.reached()
		return nil
	}
	var deadline <-chan time.Time
	if limit > 0 {
		tm := time.NewTimer(limit - prior.Time)
		defer tm.Stop()
		deadline = tm.C
	}
	// Seeding waits for peers to ask: nothing to look at five times a
	// second. The ratio is checked once a second; a time limit alone
	// needs no tick at all.
	if ratio > 0 {
		tick.Reset(time.Second)
	} else {
		tick.Stop()
	}
	for {
		select {
		case <-ctx.Done():
			// Stopping while seeding loses nothing: the files are done.
			return nil
		case <-deadline:
			j.reached()
			return nil
		case <-tick.C:
		}
		if ratio > 0 && size > 0 {
			st := j.t.Stats()
			if float64(prior.Uploaded+st.BytesWrittenData.Int64()) >= ratio*float64(size) {
				j.reached()
				return nil
			}
		}
	}
}

func (j *Job) selectedSize() int64 {
	j.mu.Lock()
	defer j.mu.Unlock()
	var n int64
	for _, f := range j.files {
		if f.Selected {
			n += f.Size
		}
	}
	return n
}

// checkFile checks a finished file against the metalink's hashes, if the
// source came with any.
func (j *Job) checkFile(name string, f *os.File, size int64) error {
	hashes := j.req.Spec.Hashes[name]
	if len(hashes) == 0 {
		return nil
	}
	rep, err := piece.VerifyFull(context.Background(), f, size, metalink.File{Name: name, Size: size, Hashes: hashes}, 0)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if rep.Whole == piece.Mismatch {
		return fmt.Errorf("%s: %w: the file does not match the metalink's %s", name, ErrMismatch, rep.HashType)
	}
	return nil
}

// ErrMismatch is wrapped when a file whose every piece matched the
// torrent does not match the metalink's whole-file hash.
var ErrMismatch = errors.New("file does not match its hash")

// filled notes that src sent data for piece i (see Client.receivedUseful).
func (j *Job) filled(i int, src string) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if i < 0 || i >= len(j.filler) {
		return
	}
	if src == sourcePeers {
		j.filler[i] = 0
		return
	}
	if k, ok := j.byHost[src]; ok {
		j.filler[i] = k
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func nameOr(name string, s *Spec) string {
	if name != "" {
		return name
	}
	return s.InfoHash.HexString()
}
