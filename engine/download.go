package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"braid/engine/metalink"
	"braid/engine/piece"
	"braid/engine/transport"

	"golang.org/x/sync/errgroup"
)

// tick is how often the dispatcher measures speeds, looks for stalled
// connections and retries mirrors whose back-off is over.
const tick = 200 * time.Millisecond

// download is the state of one file being fetched. Its owner is run: it
// starts every goroutine of the download and waits for all of them.
type download struct {
	c       *Client
	req     Request
	file    metalink.File
	whole   metalink.Hash // strongest whole-file hash; Type "" when none
	started time.Time

	ended   chan *segment // connections report here when they stop
	advance chan struct{} // the done prefix grew (for the whole-file hasher)

	// mirrors is made by newDownload; plan, size and st by run (plan and
	// size under mu, as snapshots read them) before any connection starts.
	// All are read-only afterwards.
	plan    piece.Plan
	size    int64
	st      *store
	mirrors []*mirror

	mu          sync.Mutex // guards what follows
	state       State
	err         error
	attempt     int
	pieces      []PieceState
	filler      []int16
	partial     map[int]int64   // no piece hashes: bytes written at the start of piece i (partial.go)
	bad         map[int][]int16 // piece → mirrors that sent bad data for it
	segs        []*segment      // open connections
	done        int             // pieces done
	doneB       int64           // bytes in pieces done
	prefix      int             // pieces done from the start without a gap
	pending     []int           // done pieces not yet synced and journaled
	unjournaled []int           // synced pieces the journal refused; retried
	speed       float64         // bytes/s over the last speedSpan
	rates       rateWindow      // what speed is measured from
	sampled     int64           // total bytes at the last sample
	lost        []*MirrorError  // why mirrors were dropped
	perMirror   int             // the Client's per-mirror cap the mirrors have (see trim)
	savedAs     string          // the name the file is saved under (see place)
	note        string          // why savedAs is not the file's name
	held        string          // why the download waits for another program (see noteHeld)
	heldFrom    State           // the state that wait interrupted
	verifiedBy  string          // the hash that proved the file; "" none
	adopted     bool            // a file already there was proven to be it
	trusted     bool            // pieces were taken on the journal's word, unchecked in this run
	byPieces    bool            // the piece hashes alone proved the file (see piecesSuffice)
	parityTried bool            // Request.Parity was asked (once a download; see parity.go)
	rebuilding  int             // pieces being rebuilt from parity now
	rebuilt     int             // pieces rebuilt from parity

	plog      *pieceLog    // NAME.part.done, see piecelog.go
	earlier   bool         // pieces of an earlier run were checked (liar.go)
	waitSince time.Time    // when StateWaiting began
	suspect   *mirror      // whose bytes are being checked (see liar.go)
	checked   map[int]bool // mirrors checked as suspects

	hashed   atomic.Int64 // bytes of the file fed to the whole-file hash
	lastByte atomic.Int64 // when a mirror last sent a byte, unix nanoseconds
	differed atomic.Bool  // the suspect's bytes differ from another mirror's
}

func newDownload(c *Client, req *Request) *download {
	d := &download{
		c:       c,
		req:     *req,
		file:    req.File,
		started: time.Now(),
		ended:   make(chan *segment),
		advance: make(chan struct{}, 1),
		size:    req.File.Size,
		attempt: 1,
		bad:     map[int][]int16{},
		checked: map[int]bool{},
	}
	if req.Done != nil {
		d.req.Done = req.Done.Clone()
	}
	d.whole, _ = piece.Strongest(req.File.Hashes)
	d.openMirrors()
	return d
}

// noteHeld enters StateWaiting while another program holds the file open
// and the store waits for it (why says so), and goes back to the state
// it interrupted when why is "".
func (d *download) noteHeld(why string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	switch {
	case why != "" && d.held == "":
		d.heldFrom, d.state = d.state, StateWaiting
	case why == "" && d.held != "":
		d.state = d.heldFrom
	}
	d.held = why
}

func (d *download) setState(s State) {
	d.mu.Lock()
	d.state = s
	d.mu.Unlock()
}

// run is the whole life of the download.
func (d *download) run(ctx context.Context) (err error) {
	defer d.closeMirrors()
	defer func() {
		d.mu.Lock()
		defer d.mu.Unlock()
		d.err = err
		switch {
		case err == nil:
			d.state = StateDone
		case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
			d.state = StateCanceled
		default:
			d.state = StateFailed
		}
	}()
	name := d.file.Name
	if name == "" {
		return errors.New("file has no name")
	}
	if err := metalink.SafeName(name); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	st, err := openStore(d.req.Dir, name)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	defer st.close()
	st.ctx, st.held = ctx, d.noteHeld
	d.st = st

	size := d.size
	if size < 0 {
		if size = d.statSize(ctx); size < 0 {
			if err := ctx.Err(); err != nil {
				return fmt.Errorf("%s: %w", name, err) // canceled, not unknown
			}
			if _, ok, err := st.existing(); err != nil || ok {
				if err == nil {
					err = fmt.Errorf("%w (nobody tells the size to check it against); remove it to download again", ErrExists)
				}
				return fmt.Errorf("%s: %w", name, err)
			}
			err := d.streamUnknown(ctx)
			var learned sizeLearned
			if !errors.As(err, &learned) {
				if err != nil {
					return fmt.Errorf("%s: %w", name, err)
				}
				return nil
			}
			size = learned.size
		}
	}
	d.initPieces(size)

	adopted, err := d.place(ctx)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	defer release(d.req.Dir, st.name)
	if adopted {
		if st.partIsFinal() {
			// publish was stopped before it removed the old name: the
			// .part and its piece log are this very file's.
			if err := st.remove(st.part); err != nil {
				return fmt.Errorf("%s: remove %s: %w", name, st.part, err)
			}
			d.removePieceLog()
		}
		return nil
	}
	d.mu.Lock()
	live := d.live()
	d.mu.Unlock()
	if live == 0 && d.plan.Count() > 0 {
		return fmt.Errorf("%s: %w", name, noMirrorsError(d.lost))
	}

	logged, partial := d.readPieceLog(d.req.Done)
	// Pieces the journal names are taken on its word; a salvage reads
	// each piece back and checks it. A journal that names no piece says
	// nothing of the .part (its pieces may have been written by a run
	// that ended before it recorded them): the .part is salvaged, not
	// emptied.
	trusted := d.req.Done != nil && d.req.Done.Count() > 0
	if !trusted && len(logged) == 0 {
		d.req.Done = d.salvage(ctx)
	}
	journaled := d.req.Done != nil && d.req.Done.Len() == d.plan.Count() && d.req.Done.Count() > 0
	kept, err := st.openPart(d.size, journaled || len(logged) > 0 || len(partial) > 0)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if kept {
		if journaled {
			d.markDone(d.req.Done, trusted)
		}
		d.salvageLogged(ctx, logged)
		d.keepPartials(partial)
	}
	d.dropPartialRecords(partial)
	d.req.Done = nil
	d.openPieceLog()
	defer d.closePieceLog()
	defer func() {
		// After the sync loop's last round (the deferred stopSyncer
		// below runs first), before the log is closed.
		if err != nil {
			d.savePartials()
		}
	}()

	syncCtx, stopSync := context.WithCancel(context.Background())
	syncDone := make(chan error, 1)
	go func() { syncDone <- d.syncLoop(syncCtx) }()
	synced := false
	// stopSyncer ends the sync loop after its last sync and journal call;
	// it runs before the rename, and on every other way out.
	stopSyncer := func() error {
		if synced {
			return nil
		}
		synced = true
		stopSync()
		return <-syncDone
	}
	defer func() {
		if jerr := stopSyncer(); err == nil && jerr != nil {
			err = fmt.Errorf("%s: %w", name, jerr)
		}
	}()

	parityDone := false // the parity set mended a mismatch, and the file now matches
	for {
		sum := d.whole.Value
		if !parityDone {
			var err error
			sum, err = d.fetchAndHash(ctx)
			if err == nil {
				sum, err = d.parityProof(ctx, sum)
			}
			if err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
		}
		if d.whole.Type == "" || sum == d.whole.Value {
			d.convictSuspect()
			d.setVerifiedBy()
			if err := stopSyncer(); err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			if err := d.check(ctx, st.f); err != nil {
				return fmt.Errorf("%s: %w; %s kept", name, err, st.part)
			}
			if err := d.finish(); err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			d.removePieceLog()
			return nil
		}
		mismatch := fmt.Errorf("%s: %w: %s %s, expected %s", name, ErrHashMismatch, d.whole.Type, sum, d.whole.Value)
		if d.req.Parity != nil && !d.parityTried && !d.plan.Verifiable() {
			// Without piece hashes the parity set's own checksums find
			// the bad bytes: cheaper than fetching again.
			d.parityTried = true
			mended, err := d.mendMismatch(ctx, mismatch)
			if ctx.Err() != nil {
				return fmt.Errorf("%s: %w", name, ctx.Err())
			}
			if err == nil && mended == d.whole.Value {
				parityDone = true
				continue
			}
			if err != nil {
				mismatch = err
			}
		}
		if d.plan.Verifiable() {
			return fmt.Errorf("%w, although every piece matched its hash: the metalink's hashes disagree; %s kept", mismatch, st.part)
		}
		if !d.checkNextSuspect() {
			return fmt.Errorf("%w, and no mirror's bytes differ from the other mirrors'; %s kept", mismatch, st.part)
		}
	}
}

// fetchAndHash fetches every missing piece while the whole-file hash
// follows the done prefix of the file, and returns that hash (in hex, ""
// without a whole-file hash) once both are through.
func (d *download) fetchAndHash(ctx context.Context) (string, error) {
	d.setState(StateDownloading)
	hctx, stopHash := context.WithCancel(ctx)
	defer stopHash()
	sums := make(chan hashResult, 1)
	go func() { sums <- d.hashPrefix(hctx) }()
	if err := d.dispatch(ctx); err != nil {
		stopHash()
		<-sums
		return "", err
	}
	d.setState(StateVerifying)
	res := <-sums
	return res.sum, res.err
}

// initPieces sets the file's size, its plan and an empty piece map.
func (d *download) initPieces(size int64) {
	f := d.file
	f.Size = size
	plan := piece.PlanFor(f)
	n := plan.Count()
	d.mu.Lock()
	defer d.mu.Unlock()
	d.size, d.plan = size, plan
	d.pieces = make([]PieceState, n)
	d.filler = make([]int16, n)
	d.partial = map[int]int64{}
	for i := range d.filler {
		d.filler[i] = -1
	}
}

// markDone takes the pieces a resume says are on disk; trusted when they
// are taken on the journal's word, not checked again in this run.
func (d *download) markDone(b *piece.Bitfield, trusted bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.trusted = d.trusted || trusted && b.Count() > 0
	for i := range d.pieces {
		if b.Has(i) {
			d.pieces[i] = PieceDone
			_, n := d.plan.Bounds(i)
			d.done++
			d.doneB += n
		}
	}
	d.advancePrefix()
}

// advancePrefix moves the done prefix forward and wakes the whole-file
// hasher. Called with d.mu held.
func (d *download) advancePrefix() {
	moved := false
	for d.prefix < len(d.pieces) && d.pieces[d.prefix] == PieceDone {
		d.prefix++
		moved = true
	}
	if moved || d.prefix == len(d.pieces) {
		select {
		case d.advance <- struct{}{}:
		default:
		}
	}
}

// finishPiece records that s has fetched its piece cur, good or not, and
// reports whether s goes on to the next piece. Called with d.mu held.
func (d *download) finishPiece(s *segment, good bool) bool {
	i, m := s.cur, s.m
	if good {
		d.pieces[i] = PieceDone
		d.filler[i] = int16(m.idx)
		_, n := d.plan.Bounds(i)
		d.done++
		d.doneB += n
		m.useful += n
		d.pending = append(d.pending, i)
		delete(d.partial, i)
		d.logPiece(i)
		m.fails = 0
		d.advancePrefix()
	} else {
		d.pieces[i] = PieceBad
		d.filler[i] = int16(m.idx)
		if len(d.bad[i]) == 0 {
			m.blamed++
		}
		d.bad[i] = append(d.bad[i], int16(m.idx))
		m.strikes++
		if m.blamed >= maxStrikes && m.state != MirrorDropped && !d.keepsLast(m) {
			d.dropMirror(m, fmt.Errorf("sent %d pieces that fail their %s hash (last: piece %d)", m.strikes, d.plan.Type, i))
		}
	}
	s.partial.Store(0)
	s.cur++
	return s.cur < s.end && m.state != MirrorDropped
}

// keepsLast reports whether m, which has sent maxStrikes pieces bad, is
// kept all the same: it is the last mirror left, and it has sent more good
// pieces than bad. Its copy of the file is damaged, not made up, and
// dropping it would leave the rest of the file unfetched: kept, it fetches
// every other piece, and only its bad ones are left for the file's parity
// set or a later repair. (Its bad pieces are not asked of it again.) A
// mirror that sends mostly bad pieces is dropped as before. Called with
// d.mu held.
func (d *download) keepsLast(m *mirror) bool {
	for _, o := range d.mirrors {
		if o != m && o.state != MirrorDropped {
			return false
		}
	}
	good := m.useful / max(d.plan.Length, 1)
	return good > int64(m.blamed)
}

// strikesWhy is, for a mirror still used that has sent pieces that fail
// their hash, why it is still used (MirrorSnapshot.StrikesWhy): the
// pieces were bad on every mirror, it is the last mirror and kept, or too
// few of them were its fault alone to drop it (finishPiece); "" for any
// other mirror. Called with d.mu held.
func (d *download) strikesWhy(m *mirror) string {
	if m.strikes == 0 || m.state == MirrorDropped || m.src == nil {
		return ""
	}
	// Of the pieces m sent bad (a piece may have been sent bad more than
	// once: strikes counts the sends): how many another mirror sent bad
	// too, and whether every mirror of the file did.
	mine, shared, everyone := 0, 0, len(d.mirrors) > 1
	for _, by := range d.bad {
		if !slices.Contains(by, int16(m.idx)) {
			continue
		}
		mine++
		others := false
		for _, o := range d.mirrors {
			has := slices.Contains(by, int16(o.idx))
			everyone = everyone && has
			others = others || o != m && has
		}
		if others {
			shared++
		}
	}
	n := mine
	if n == 0 {
		n = m.strikes
	}
	everyone = everyone && mine > 0
	// Each reason in full, one format each, so the window finds the rule
	// it states (ui's engineRules) and says it in the user's language.
	h := d.plan.Type
	switch {
	case m.blamed >= maxStrikes:
		return fmt.Sprintf("sent %d pieces that fail their %s hash; kept: it is the last mirror and sent mostly good pieces", n, h)
	case everyone && n == 1:
		return fmt.Sprintf("sent %d piece that fails its %s hash; every mirror sent it so (the damage is in the published copies)", n, h)
	case everyone:
		return fmt.Sprintf("sent %d pieces that fail their %s hash; every mirror sent them so (the damage is in the published copies)", n, h)
	case mine > 0 && shared == mine && n == 1:
		return fmt.Sprintf("sent %d piece that fails its %s hash; another mirror sent it bad too", n, h)
	case mine > 0 && shared == mine:
		return fmt.Sprintf("sent %d pieces that fail their %s hash; other mirrors sent them bad too", n, h)
	case n == 1:
		return fmt.Sprintf("sent %d piece that fails its %s hash; still used: a mirror is dropped after %d bad pieces no other mirror sent bad", n, h, maxStrikes)
	}
	return fmt.Sprintf("sent %d pieces that fail their %s hash; still used: a mirror is dropped after %d bad pieces no other mirror sent bad", n, h, maxStrikes)
}

// dropMirror stops using m for this file. Called with d.mu held.
func (d *download) dropMirror(m *mirror, why error) {
	m.drop(why.Error())
	d.lost = append(d.lost, &MirrorError{Mirror: m.name, Err: why})
	for _, s := range d.segs {
		if s.m == m && s.cut == "" {
			s.cut = cutStop
			s.cancel()
		}
	}
}

// statSize asks the mirrors that can tell for the file's size, when the
// metalink does not say; the first answer wins, -1 when none tells. It
// asks no more mirrors at once than the file's connection limit allows.
func (d *download) statSize(ctx context.Context) int64 {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	var g errgroup.Group
	if lim := d.file.MaxConnections; lim > 0 {
		g.SetLimit(lim)
	}
	var size atomic.Int64
	size.Store(-1)
	for _, m := range d.mirrors {
		st, ok := m.src.(transport.Stater)
		if !ok {
			continue
		}
		g.Go(func() error {
			if ctx.Err() != nil {
				return nil // answered already
			}
			if info, err := st.Stat(ctx); err == nil && info.Size >= 0 && size.CompareAndSwap(-1, info.Size) {
				cancel()
			}
			return nil
		})
	}
	_ = g.Wait() // no goroutine returns an error
	return size.Load()
}

// sample updates the speeds. Called with d.mu held, by the dispatcher.
func (d *download) sample(dt time.Duration) {
	var total int64
	for _, m := range d.mirrors {
		m.sample(dt, m.conns > 0)
		total += m.bytes.Load()
	}
	now := time.Now()
	if len(d.rates.samples) == 0 {
		d.rates.add(now.Add(-dt), d.sampled) // where the first span starts
	}
	d.sampled = total
	d.speed = d.rates.add(now, total)
}

// stillAfter is how long without a byte makes a download's speed 0 in
// its snapshot: twice the averages' time constant, by which a true rate
// would have shown.
const stillAfter = 2 * rateTau

// snapshot copies the download's state into s, reusing s's slices.
func (d *download) snapshot(s *Snapshot) {
	now := time.Now()
	d.mu.Lock()
	defer d.mu.Unlock()
	s.Name = d.file.Name
	s.SavedAs, s.Note, s.VerifiedBy = d.savedAs, d.note, d.verifiedBy
	s.Held = d.held
	s.Created = d.state == StateDone && !d.adopted
	s.Size = d.size
	s.PieceLength = d.plan.Length
	s.Verified = d.done
	s.Checked = d.plan.Verifiable()
	s.State = d.state
	s.Err = d.err
	s.Attempt = d.attempt
	s.Rebuilding, s.Rebuilt = d.rebuilding, d.rebuilt
	s.Elapsed = now.Sub(d.started)
	s.Bytes = d.doneB
	s.Hashed = d.hashed.Load()
	s.Skipping = 0
	for _, sg := range d.segs {
		s.Bytes += sg.partial.Load()
		s.Skipping += sg.skip.Load()
	}
	s.Bytes += d.partialBytes()
	// The averages fade slowly; a download that has had no byte for a
	// while, or waits, is not moving, and has no time left to tell.
	still := d.state == StateWaiting || now.Sub(time.Unix(0, d.lastByte.Load())) > stillAfter
	s.Speed = int64(d.speed)
	if still {
		s.Speed = 0
	}
	s.ETA = -1
	s.NextTry = time.Time{}
	if d.state == StateWaiting && d.held == "" {
		s.NextTry = d.nextTry(now)
	}
	switch {
	case d.state == StateDone:
		s.ETA = 0
	case !still && d.speed > 1 && d.size >= 0:
		s.ETA = time.Duration(float64(d.size-s.Bytes+s.Skipping) / d.speed * float64(time.Second))
	}
	s.Pieces = append(s.Pieces[:0], d.pieces...)
	s.Filler = append(s.Filler[:0], d.filler...)
	s.Mirrors = s.Mirrors[:0]
	for _, m := range d.mirrors {
		ms := MirrorSnapshot{
			URL:        m.name,
			Host:       m.host,
			Location:   m.url.Location,
			Priority:   m.url.Priority,
			Reason:     m.reason,
			StrikesWhy: d.strikesWhy(m),
			Conns:      m.conns,
			Bytes:      m.bytes.Load(),
			Useful:     m.useful,
			Strikes:    m.strikes,
		}
		switch {
		case m.state == MirrorDropped || m.src == nil:
			ms.State = MirrorDropped
		case m.conns > 0:
			ms.State = MirrorActive
			if !still {
				ms.Speed = int64(m.rate)
			}
		case m.retryAt.After(now), m.fails > 0, m.stalls > 0:
			// Backing off, or its back-off is over but it has not sent
			// a byte since it failed.
			ms.State = MirrorRetrying
		default:
			ms.State = MirrorIdle
		}
		s.Mirrors = append(s.Mirrors, ms)
	}
}
