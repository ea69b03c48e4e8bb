package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"braid/engine/metalink"
	"braid/engine/netconf"
	"braid/engine/piece"
	"braid/engine/redact"
	"braid/engine/transport"
)

// ErrCannotRepair: the file cannot be repaired from its metalink; the
// error says why and what the user can do instead.
var ErrCannotRepair = errors.New("cannot repair")

// RepairOptions are what a repair needs besides the file: the same facts a
// download of it gets (see Request).
type RepairOptions struct {
	OriginETag string
	Referer    string
	Locations  []string
	// Net is the job's logins, cookies and headers, as Request.Net.
	Net *netconf.Session
	// Workers is how many goroutines hash the file; 0: one per CPU.
	Workers int
	// Progress, when set, is told after each piece written how many of
	// the bad pieces are mended. It is called from the repair's
	// goroutines, one call at a time, and must return quickly.
	Progress func(mended, bad int)
	// Parity, when set, rebuilds from the file's PAR2 parity set the
	// pieces no mirror sent good, as Request.Parity does for a download:
	// mirrors first, then parity. Each rebuilt piece is checked against
	// its hash, and the file against its whole-file hash.
	Parity func(ctx context.Context, m *Mend) error
	// Rebuilding, when set, is told how many pieces are being rebuilt
	// from parity when that begins, and 0 when it ends.
	Rebuilding func(pieces int)
}

// RepairResult is what a repair found and did.
type RepairResult struct {
	// Before is the check of the file as it was.
	Before *piece.Report
	// Fetched is how many pieces were fetched again (without piece
	// hashes: the engine-sized pieces of the missing end), and Bytes what
	// the mirrors sent for them.
	Fetched int
	Bytes   int64
	// Cut is the bytes cut off past the file's end.
	Cut int64
	// Appended: without piece hashes, the missing end was fetched and the
	// whole-file hash judged the result.
	Appended int64
	// VerifiedBy names the hash that proves the file now, as in
	// Snapshot.VerifiedBy; "" when the repair failed.
	VerifiedBy string
	// Rebuilt is how many of the bad pieces no mirror sent good were
	// rebuilt from the parity set (RepairOptions.Parity); they are not
	// in Fetched.
	Rebuilt int
}

// Repair checks the file f.Name in dir against f's hashes and, when it is
// damaged, mends it where it is: only the pieces that fail their hash (or
// are missing at the end) are fetched from f's mirrors, each is hashed in
// memory and written over the bad one only once it matches, and bytes past
// the end are cut off. There is no copy of the file and no other name: a
// repair that fails or is stopped leaves the file as it was except for
// pieces now good, and a crash mid-write leaves a piece that the next
// check finds bad, so running Repair again finishes the job. At the end the
// file is verified (RepairResult.VerifiedBy says by which hash), or Repair
// returns why not.
//
// A file without piece hashes can only be completed when it is short: the
// missing end is fetched and the whole-file hash judges the result; when
// it does not match, the file is cut back to its old length.
func (c *Client) Repair(ctx context.Context, dir string, f metalink.File, o RepairOptions) (*RepairResult, error) {
	c.init()
	if err := metalink.SafeName(f.Name); err != nil {
		return nil, fmt.Errorf("%s: %w", f.Name, err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("open folder: %w", err)
	}
	defer root.Close()
	// Read-only until a repair is needed: a good read-only file checks out.
	file, err := root.Open(filepath.FromSlash(f.Name))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w: it is not in %s (braid get fetches it): %w", ErrCannotRepair, dir, fs.ErrNotExist)
	}
	if err != nil {
		return nil, err
	}
	defer file.Close()
	fi, err := file.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%w: %s is not a regular file", ErrCannotRepair, f.Name)
	}
	if f.Size < 0 {
		f.Size = fi.Size()
	}
	rep, err := piece.Verify(ctx, file, fi.Size(), f, o.Workers)
	if err != nil {
		return nil, err
	}
	res := &RepairResult{Before: rep}
	if rep.OK() && rep.Whole == piece.Covered {
		// The piece hashes made the whole-file hash needless; a file with
		// nothing to repair gets it anyway, so that "OK" means every
		// published hash agrees.
		if rep, err = piece.VerifyFull(ctx, file, fi.Size(), f, o.Workers); err != nil {
			return nil, err
		}
		res.Before = rep
	}
	if rep.OK() {
		res.VerifiedBy = reportVerifiedBy(rep)
		return res, nil
	}
	if err := repairable(f, rep); err != nil {
		return nil, err
	}
	rw, err := root.OpenFile(filepath.FromSlash(f.Name), os.O_RDWR, 0)
	if err != nil {
		return nil, fmt.Errorf("open %s to mend it in place: %w", f.Name, err)
	}
	defer rw.Close()
	r := &repair{c: c, f: f, file: rw, rep: rep, res: res, opts: o}
	switch {
	case rep.TruncateRepairs:
		return res, r.cut()
	case !rep.PiecesKnown():
		return res, r.appendEnd(ctx)
	}
	return res, r.pieces(ctx)
}

// repairable says why a damaged file cannot be repaired, or nil.
func repairable(f metalink.File, rep *piece.Report) error {
	switch {
	case rep.TruncateRepairs:
		return nil
	case rep.Whole == piece.Unknown && rep.HashType == "" && !rep.PiecesKnown():
		return fmt.Errorf("%w: the metalink has no hash Braid can check, so good bytes cannot be told from bad", ErrCannotRepair)
	case rep.PiecesKnown() && len(rep.Bad) == 0:
		return fmt.Errorf("%w: every piece matches its %s hash but the whole file does not match its %s hash: the metalink's hashes disagree",
			ErrCannotRepair, rep.PieceType, rep.HashType)
	case !rep.PiecesKnown() && (len(rep.Missing) == 0 || rep.Trailing > 0):
		return fmt.Errorf("%w: the whole file does not match its %s hash and the metalink has no piece hashes Braid can use, "+
			"so the bad bytes cannot be located; only a full download can fix it: remove it and run braid get", ErrCannotRepair, rep.HashType)
	case len(f.URLs) == 0:
		return fmt.Errorf("%w: the metalink lists no mirror for it", ErrCannotRepair)
	}
	return nil
}

// reportVerifiedBy names the hash a good report rests on.
func reportVerifiedBy(rep *piece.Report) string { return rep.VerifiedBy() }

// repair is one Repair in progress.
type repair struct {
	c    *Client
	f    metalink.File
	file *os.File
	rep  *piece.Report
	res  *RepairResult
	opts RepairOptions
}

// cut removes the bytes past the end of a file whose first Expected bytes
// are right.
func (r *repair) cut() error {
	if err := r.file.Truncate(r.rep.Expected); err != nil {
		return fmt.Errorf("cut %s to %d bytes: %w", r.f.Name, r.rep.Expected, err)
	}
	if err := r.file.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", r.f.Name, err)
	}
	r.res.Cut = r.rep.Trailing
	r.res.VerifiedBy = r.rep.HashType
	if r.rep.Whole != piece.Match || r.rep.HashType == "" {
		r.res.VerifiedBy = r.rep.PieceType + " pieces"
	}
	return nil
}

// sources opens the file's mirrors in the order a download tries them.
func (r *repair) sources() []transport.Source {
	var out []transport.Source
	for _, u := range metalink.OrderURLs(r.f.URLs, r.opts.Locations) {
		o := transport.Options{Size: r.f.Size, UserAgent: r.c.UserAgent, Referer: redact.Referer(r.opts.Referer),
			HTTPClient: r.c.HTTP, Network: r.c.Network, Session: r.opts.Net}
		if u.Pref {
			o.IfMatch = r.opts.OriginETag
		}
		if src, err := transport.New(u.URL, o); err == nil {
			out = append(out, src)
		}
	}
	return out
}

func closeSources(srcs []transport.Source) {
	for _, s := range srcs {
		if c, ok := s.(io.Closer); ok {
			c.Close()
		}
	}
}

// pieces fetches every bad piece, writes each good copy in place, cuts off
// trailing bytes, and checks the whole-file hash when the piece hashes do
// not already prove it.
func (r *repair) pieces(ctx context.Context) error {
	srcs := r.sources()
	defer closeSources(srcs)
	if len(srcs) == 0 {
		return fmt.Errorf("%w: no mirror of the metalink can be used", ErrCannotRepair)
	}
	plan := piece.PlanFor(r.f)
	fx := newFixer(r, plan, srcs)
	err := fx.run(ctx)
	r.res.Bytes = fx.bytes
	if err != nil && r.opts.Parity != nil && ctx.Err() == nil && (errors.Is(err, ErrBadPiece) || errors.Is(err, ErrNoMirrors)) {
		err = r.mendFromParity(ctx, plan, err)
	}
	if err != nil {
		return err
	}
	r.res.Fetched = len(r.rep.Bad) - r.res.Rebuilt
	if r.rep.Trailing > 0 {
		if err := r.file.Truncate(r.rep.Expected); err != nil {
			return fmt.Errorf("cut %s to %d bytes: %w", r.f.Name, r.rep.Expected, err)
		}
		r.res.Cut = r.rep.Trailing
	}
	if err := r.file.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", r.f.Name, err)
	}
	// Verify computed the whole-file hash only where the piece hashes do
	// not cover it; then it must be checked on the mended file. A rebuild
	// from parity is checked by the file's own hash too, read in full.
	if r.rep.HashType != "" && (r.rep.Whole == piece.Match || r.rep.Whole == piece.Mismatch || r.res.Rebuilt > 0) {
		return r.checkWhole(ctx)
	}
	r.res.VerifiedBy = r.rep.PieceType + " pieces"
	return nil
}

// checkWhole checks the mended file against its whole-file hash.
func (r *repair) checkWhole(ctx context.Context) error {
	rep, err := piece.VerifyFull(ctx, r.file, r.rep.Expected, r.f, r.opts.Workers)
	if err != nil {
		return err
	}
	if rep.Whole != piece.Match {
		return fmt.Errorf("%s: %w: every piece now matches its %s hash but not the whole-file %s: the metalink's hashes disagree",
			r.f.Name, ErrHashMismatch, r.rep.PieceType, r.rep.HashType)
	}
	r.res.VerifiedBy = rep.HashType
	return nil
}

// appendEnd completes a short file without piece hashes: its missing end
// is fetched from the first mirror that serves it and the whole-file hash
// judges the result; a mismatch cuts the file back to what it was.
func (r *repair) appendEnd(ctx context.Context) error {
	srcs := r.sources()
	defer closeSources(srcs)
	off, n := r.rep.Size, r.rep.Expected-r.rep.Size
	var errs []error
	for _, src := range srcs {
		sent, err := r.copyRange(ctx, src, off, n)
		r.res.Bytes += sent
		if err == nil {
			r.res.Appended = n
			r.res.Fetched = r.rep.Layout.Count() - r.rep.Layout.Index(off)
			if err := r.file.Sync(); err != nil {
				return fmt.Errorf("sync %s: %w", r.f.Name, err)
			}
			if err := r.checkWhole(ctx); err != nil {
				r.file.Truncate(off)
				return fmt.Errorf("%w; the fetched end was cut off again", err)
			}
			return nil
		}
		r.file.Truncate(off)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		errs = append(errs, fmt.Errorf("%s: %w", src.Mirror(), err))
	}
	return fmt.Errorf("%s: %w", r.f.Name, noMirrorsErr(errs))
}

// copyRange writes the bytes [off, off+n) from src at the same offset of
// the file, and returns how many it received.
func (r *repair) copyRange(ctx context.Context, src transport.Source, off, n int64) (int64, error) {
	rc, err := src.ReadRange(ctx, off, n)
	if err != nil {
		return 0, err
	}
	defer rc.Close()
	bp := bufPool.Get().(*[]byte)
	defer bufPool.Put(bp)
	var got int64
	for got < n {
		k, err := rc.Read((*bp)[:min(int64(len(*bp)), n-got)])
		if k > 0 {
			if err := r.c.lim.wait(ctx, k); err != nil {
				return got, err
			}
			if _, err := r.file.WriteAt((*bp)[:k], off+got); err != nil {
				return got, &diskError{fmt.Errorf("write %s: %w", r.f.Name, err)}
			}
			got += int64(k)
		}
		if err == io.EOF && got < n {
			return got, io.ErrUnexpectedEOF
		}
		if err != nil && err != io.EOF {
			return got, err
		}
	}
	return got, nil
}

func noMirrorsErr(errs []error) error {
	if len(errs) == 0 {
		return ErrNoMirrors
	}
	return fmt.Errorf("%w (%w)", ErrNoMirrors, errors.Join(errs...))
}

// fixer fetches the bad pieces of a file from its mirrors at once, one
// worker per connection a mirror allows, the better mirrors first. A piece
// a mirror sent bad is offered to the others; a mirror that sent
// maxStrikes bad pieces, or failed maxFails times in a row, is let go.
// repairMaxFails is how many errors in a row, without a piece written, a
// mirror may send before a repair lets it go: a repair ends, unlike a
// download that waits out an outage.
const repairMaxFails = 5

type fixer struct {
	r    *repair
	plan piece.Plan
	srcs []transport.Source

	mu      sync.Mutex
	cond    *sync.Cond
	tasks   []*fixTask // waiting to be fetched
	busy    int        // tasks being fetched
	idle    []int      // per mirror: workers waiting for a task
	out     []bool     // per mirror: let go
	strikes []int
	fails   []int
	err     error
	bytes   int64
	lost    []error // why mirrors were let go
	done    int     // pieces mended
}

// fixTask is a run of bad pieces [first, end) to fetch in one request.
type fixTask struct {
	first, end int
	tried      map[int]bool // mirrors that sent one of its pieces bad
}

func newFixer(r *repair, plan piece.Plan, srcs []transport.Source) *fixer {
	fx := &fixer{r: r, plan: plan, srcs: srcs,
		idle: make([]int, len(srcs)), out: make([]bool, len(srcs)),
		strikes: make([]int, len(srcs)), fails: make([]int, len(srcs))}
	fx.cond = sync.NewCond(&fx.mu)
	workers := len(srcs) * r.c.perMirror()
	// Runs of adjacent bad pieces, split so that every worker has a part.
	bad := r.rep.Bad
	chunk := max(1, (len(bad)+workers-1)/workers)
	for i := 0; i < len(bad); {
		j := i + 1
		for j < len(bad) && bad[j] == bad[j-1]+1 && j-i < chunk {
			j++
		}
		fx.tasks = append(fx.tasks, &fixTask{first: bad[i], end: bad[j-1] + 1, tried: map[int]bool{}})
		i = j
	}
	return fx
}

// run fetches every task and returns the first error that ends the
// repair: a piece no mirror sent good, every mirror let go, the disk.
func (fx *fixer) run(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	for m := range fx.srcs {
		for range fx.r.c.perMirror() {
			fx.idle[m]++ // counted idle from the start, so the order holds
			wg.Add(1)
			go func() {
				defer wg.Done()
				fx.work(ctx, m)
			}()
		}
	}
	stop := context.AfterFunc(ctx, func() {
		fx.mu.Lock()
		fx.cond.Broadcast()
		fx.mu.Unlock()
	})
	wg.Wait()
	stop()
	if fx.err != nil {
		return fx.err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if len(fx.tasks) > 0 {
		// Every mirror was let go with pieces still bad.
		return fmt.Errorf("%s: %d pieces still bad: %w", fx.r.f.Name, fx.left(), noMirrorsErr(fx.lost))
	}
	return nil
}

// left counts the pieces not fetched yet.
func (fx *fixer) left() int {
	n := 0
	for _, t := range fx.tasks {
		n += t.end - t.first
	}
	return n
}

// next waits for a task mirror m may take, and returns nil when there is
// none left for it. Called with fx.mu held.
func (fx *fixer) next(ctx context.Context, m int) *fixTask {
	for {
		if ctx.Err() != nil || fx.err != nil || fx.out[m] {
			return nil
		}
		if len(fx.tasks) == 0 && fx.busy == 0 {
			return nil
		}
		for i, t := range fx.tasks {
			if t.tried[m] || fx.betterIdle(m, t) {
				continue
			}
			fx.tasks = append(fx.tasks[:i], fx.tasks[i+1:]...)
			return t
		}
		if fx.busy == 0 && fx.stuck() {
			t := fx.tasks[0]
			off, _ := fx.plan.Bounds(t.first)
			fx.err = fmt.Errorf("%s: %w: piece %d (byte %d): every mirror sent it bad or failed", fx.r.f.Name, ErrBadPiece, t.first, off)
			fx.cond.Broadcast()
			return nil
		}
		fx.cond.Wait()
	}
}

// betterIdle reports whether a mirror tried before m is waiting and may
// take t, so that t goes to it. Called with fx.mu held.
func (fx *fixer) betterIdle(m int, t *fixTask) bool {
	for b := range m {
		if fx.idle[b] > 0 && !fx.out[b] && !t.tried[b] {
			return true
		}
	}
	return false
}

// stuck reports whether no mirror still in play may take any waiting
// task. Called with fx.mu held.
func (fx *fixer) stuck() bool {
	for _, t := range fx.tasks {
		for m := range fx.srcs {
			if !fx.out[m] && !t.tried[m] {
				return false
			}
		}
	}
	return true
}

func (fx *fixer) work(ctx context.Context, m int) {
	fx.mu.Lock()
	defer fx.mu.Unlock()
	for {
		t := fx.next(ctx, m)
		fx.idle[m]--
		if t == nil {
			fx.cond.Broadcast()
			return
		}
		fx.busy++
		pause := fx.fails[m] > 0
		fx.cond.Broadcast() // m is no longer idle: others may take what it would have
		fx.mu.Unlock()
		done, bad, err := fx.fetch(ctx, m, t, pause)
		fx.mu.Lock()
		fx.busy--
		fx.idle[m]++
		fx.settle(m, t, done, bad, err)
		fx.cond.Broadcast()
	}
}

// settle records how fetching t from mirror m went: pieces before done
// are written; bad says piece done came bad; err is why the request ended
// early. What is left goes back for the other mirrors. Called with fx.mu
// held.
func (fx *fixer) settle(m int, t *fixTask, done int, bad bool, err error) {
	var de *diskError
	switch {
	case errors.As(err, &de):
		fx.err = err
		return
	case bad:
		fx.fails[m] = 0
		fx.strikes[m]++
		if fx.strikes[m] >= maxStrikes {
			fx.letGo(m, &MirrorError{Mirror: fx.srcs[m].Mirror(), Err: fmt.Errorf("sent %d pieces that fail their hash", fx.strikes[m])})
		}
		tried := map[int]bool{m: true}
		for k := range t.tried {
			tried[k] = true
		}
		fx.tasks = append(fx.tasks, &fixTask{first: done, end: done + 1, tried: tried})
		if done+1 < t.end {
			fx.tasks = append(fx.tasks, &fixTask{first: done + 1, end: t.end, tried: t.tried})
		}
	case done < t.end:
		if done > t.first {
			fx.fails[m] = 0
		}
		fx.fails[m]++
		if fx.fails[m] >= repairMaxFails || errors.Is(err, transport.ErrNotFound) || errors.Is(err, transport.ErrMismatch) ||
			errors.Is(err, transport.ErrNoRanges) {
			fx.letGo(m, err)
		}
		fx.tasks = append(fx.tasks, &fixTask{first: done, end: t.end, tried: t.tried})
	default:
		fx.fails[m] = 0
	}
}

// mended counts a piece written and tells RepairOptions.Progress.
func (fx *fixer) mended() {
	fx.mu.Lock()
	defer fx.mu.Unlock()
	fx.done++
	if p := fx.r.opts.Progress; p != nil {
		p(fx.done, len(fx.r.rep.Bad))
	}
}

// letGo stops using mirror m; why names it (transport errors do). Called
// with fx.mu held.
func (fx *fixer) letGo(m int, why error) {
	if !fx.out[m] {
		fx.out[m] = true
		fx.lost = append(fx.lost, why)
	}
}

// fetch asks mirror m for the pieces of t and writes each one that
// matches its hash, after a pause when the mirror failed last time. It
// returns the first piece not written, whether that
// piece came bad, and the error that ended the request early.
func (fx *fixer) fetch(ctx context.Context, m int, t *fixTask, pause bool) (done int, bad bool, err error) {
	// A connection slot of the client, shared with its downloads.
	_, host := mirrorName(fx.srcs[m].Mirror())
	if err := fx.r.c.budget.acquire(ctx, host); err != nil {
		return t.first, false, err
	}
	defer fx.r.c.budget.release(host, false)
	if pause {
		// A short pause before asking a mirror that failed again.
		select {
		case <-ctx.Done():
			return t.first, false, ctx.Err()
		case <-time.After(retryBase):
		}
	}
	off, _ := fx.plan.Bounds(t.first)
	lastOff, lastN := fx.plan.Bounds(t.end - 1)
	rc, err := fx.srcs[m].ReadRange(ctx, off, lastOff+lastN-off)
	if err != nil {
		return t.first, false, err
	}
	defer rc.Close()
	buf := make([]byte, fx.plan.Length)
	for i := t.first; i < t.end; i++ {
		pOff, n := fx.plan.Bounds(i)
		p := buf[:n]
		k, err := io.ReadFull(rc, p)
		fx.mu.Lock()
		fx.bytes += int64(k)
		fx.mu.Unlock()
		if err == nil {
			err = fx.r.c.lim.wait(ctx, k)
		}
		if err != nil {
			return i, false, err
		}
		if !fx.plan.Check(i, p) {
			return i, true, nil
		}
		if _, err := fx.r.file.WriteAt(p, pOff); err != nil {
			return i, false, &diskError{fmt.Errorf("write piece %d of %s: %w", i, fx.r.f.Name, err)}
		}
		fx.mended()
	}
	return t.end, false, nil
}

// RepairText says in a line what a repair did, for the command line and
// the window alike.
func RepairText(res *RepairResult) string {
	switch {
	case res.Before != nil && res.Before.OK():
		return "OK, nothing to repair; " + OutcomeText(OutcomeVerified, res.VerifiedBy)
	case res.Appended > 0:
		return fmt.Sprintf("repaired: fetched the missing %d bytes at the end; %s", res.Appended, OutcomeText(OutcomeVerified, res.VerifiedBy))
	case res.Fetched == 0 && res.Cut > 0:
		return fmt.Sprintf("repaired: cut off %d bytes past the end; %s", res.Cut, OutcomeText(OutcomeVerified, res.VerifiedBy))
	}
	text := fmt.Sprintf("repaired: %d of %d pieces fetched again, %d bytes from mirrors", res.Fetched, res.Before.Layout.Count(), res.Bytes)
	if res.Rebuilt > 0 {
		text += fmt.Sprintf(", %d %s rebuilt from parity", res.Rebuilt, pluralPieces(res.Rebuilt))
	}
	if res.Cut > 0 {
		text += fmt.Sprintf(", %d bytes past the end cut off", res.Cut)
	}
	return text + "; " + OutcomeText(OutcomeVerified, res.VerifiedBy)
}

func pluralPieces(n int) string {
	if n == 1 {
		return "piece"
	}
	return "pieces"
}

// mendFromParity rebuilds from RepairOptions.Parity the bad pieces no
// mirror sent good (cause says why the mirrors could not), and checks each
// against its hash.
func (r *repair) mendFromParity(ctx context.Context, plan piece.Plan, cause error) error {
	var left []int
	buf := make([]byte, plan.Length)
	for _, i := range r.rep.Bad {
		off, n := plan.Bounds(i)
		if k, _ := r.file.ReadAt(buf[:n], off); int64(k) == n && plan.Check(i, buf[:n]) {
			continue // a mirror mended it
		}
		left = append(left, i)
	}
	if len(left) == 0 {
		return nil
	}
	if r.opts.Rebuilding != nil {
		r.opts.Rebuilding(len(left))
		defer r.opts.Rebuilding(0)
	}
	m := &Mend{Name: r.f.Name, Size: r.rep.Expected, Part: r.file, Pieces: len(left), Checked: true}
	for _, i := range left {
		off, n := plan.Bounds(i)
		if k := len(m.Damaged) - 1; k >= 0 && m.Damaged[k].Off+m.Damaged[k].Len == off {
			m.Damaged[k].Len += n
			continue
		}
		m.Damaged = append(m.Damaged, Span{off, n})
	}
	if err := r.opts.Parity(ctx, m); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("%w; %w: %w", cause, ErrParity, err)
	}
	failed := 0
	for _, i := range left {
		off, n := plan.Bounds(i)
		if k, _ := r.file.ReadAt(buf[:n], off); int64(k) != n || !plan.Check(i, buf[:n]) {
			failed++
		}
	}
	if failed > 0 {
		return fmt.Errorf("%w; %w: %d of the %d pieces rebuilt from it fail their %s hash (the parity set is for other bytes)",
			cause, ErrParity, failed, len(left), plan.Type)
	}
	r.res.Rebuilt = len(left)
	return nil
}
