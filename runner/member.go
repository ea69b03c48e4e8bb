package runner

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"braid/engine"
	"braid/engine/metalink"
	"braid/engine/piece"
	"braid/engine/signature"
	"braid/engine/transport"
	"braid/engine/ziprange"
	"braid/queue"
)

// MemberRecord is the queue's record of m, a member of an archive of
// archiveSize bytes, as its directory gave it.
func MemberRecord(m *ziprange.Member, archiveSize int64) queue.Member {
	return queue.Member{Name: m.Name, Size: m.Size, CompressedSize: m.CompressedSize, Method: m.Method,
		CRC32: m.CRC32, HeaderOffset: m.HeaderOffset, ArchiveSize: archiveSize}
}

// memberCheck names the check every extracted member passes; the
// archive's piece hashes, when it has them, are named after it
// ("CRC-32 and sha-256 pieces"), as braid get --member says.
const memberCheck = "CRC-32"

// errMemberNoRanges is a member job's sentence when no mirror of the
// archive sends byte ranges.
var errMemberNoRanges = errors.New("no mirror of the archive sends parts of files (byte ranges): one member cannot be read out of it, so the whole archive must be downloaded")

// runMember runs a member job (queue.NewJob.Member): the archive's directory
// from all its mirrors at once (engine.Ranges, pieces checked against the
// archive's piece hashes where it has them), then the member's local
// header and compressed bytes, inflated as they arrive into NAME.part
// and renamed to NAME once its size and CRC-32 match the directory's
// (ziprange.Extract). The archive's bytes of the member are kept as they
// arrive (NAME.packed.part, memberkeep.go), each covering piece recorded
// in the queue once synced, so a run that stops (pause, quit, a crash)
// leaves the next run only the pieces it did not have to fetch; the
// member itself is inflated again from its start, and no .part is ever
// taken as done. The Observer is told of it as of a file's download,
// with the archive's pieces that cover the member as its pieces.
func (r *Runner) runMember(ctx context.Context, j queue.Job, m queue.Member) error {
	q := r.Queue
	i := slices.IndexFunc(j.Files, func(f queue.File) bool { return f.Name == m.Name })
	archive, ok := j.ArchiveFile()
	if i < 0 || !ok {
		return fmt.Errorf("job %d: the stored job does not name the archive and its member %s", j.ID, m.Name)
	}
	f := j.Files[i]
	if f.Verified {
		if _, err := os.Stat(filepath.Join(j.Dest, filepath.FromSlash(f.Path()))); err == nil {
			return nil // extracted in an earlier run
		}
		if err := q.SetFile(j.ID, f.Name, queue.Unverified); err != nil {
			return err
		}
	}
	client, err := r.client()
	if err != nil {
		return err
	}
	net, err := r.openNet(j.ID)
	if err != nil {
		return err
	}
	locs := r.Locations
	if locs == nil {
		if s, err := q.Settings(); err == nil {
			locs = s.Countries
		}
	}
	archive.URLs = slices.Clone(archive.URLs)
	for k := range archive.URLs {
		// The queue stores no credentials; a link given in this process
		// gets its own back.
		archive.URLs[k].URL = q.Login(archive.URLs[k].URL)
	}
	req := &engine.Request{
		Dir: j.Dest, File: archive, OriginETag: j.Origin.ETag, Referer: j.Origin.Referer,
		Locations: locs, RetryFor: r.RetryFor, Net: net, Limiter: r.jobLimiter(j.ID),
	}

	parent := ctx // the run's: ended by a quit or the face's yield
	ctx, cancel, end := r.guardJob(ctx, j.ID)
	defer cancel(nil)
	mr := newMemberRun(j, m, archive)
	mr.q = q
	o := r.Observer
	var run *FileRun
	stopTicks := func() {}
	if o != nil {
		run = &FileRun{Job: j.ID, Queued: &j, Source: j.Source, Name: m.Name, Size: m.Size, Mirrors: len(archive.URLs)}
		o.Start(run)
		tick := make(chan struct{})
		ticked := make(chan struct{})
		go func() {
			defer close(ticked)
			t := time.NewTicker(min(pollInterval, o.Interval()))
			defer t.Stop()
			for {
				select {
				case <-tick:
					return
				case <-t.C:
					s := mr.snapshot(engine.StateDownloading)
					o.Progress(run, Progress{Snapshot: &s})
				}
			}
		}()
		stopTicks = func() { close(tick); <-ticked }
	}
	got, err := mr.extract(ctx, client, req)
	stopTicks()
	if kerr := mr.settleKept(err); kerr != nil && err == nil {
		err = kerr
	}
	if errors.Is(end(), errUserPaused) {
		err = errUserPaused
	}
	stopped := parent.Err() != nil || errors.Is(err, errUserPaused)
	if !stopped {
		err = memberError(m.Name, err)
	}

	state := engine.StateDone
	switch {
	case err == nil:
	case stopped:
		state = engine.StateCanceled
	default:
		state = engine.StateFailed
	}
	snap := mr.snapshot(state)
	snap.Err = err
	if err == nil {
		snap.VerifiedBy, snap.SavedAs, snap.Created = mr.check(), got.Name, !got.Existing
		if got.Existing {
			snap.Note = "already there with the member's CRC-32; nothing fetched"
		}
		err = landMember(q, j.ID, m.Name, &snap)
	}
	if o != nil {
		tellEnd(o, Result{Run: run, Source: j.Source, File: m.Name, Snapshot: &snap, Err: err}, signature.Outcome{})
	}
	if err != nil && !stopped {
		return classify(j.Dest, err)
	}
	return err // a pause or a quit: settle says so
}

// settleKept deals with the packed bytes kept, once the extraction
// ended with err: the member landed, and they go; its bytes proved bad or
// its archive changed, and they go with their record, so that the next
// run starts from nothing; otherwise they stay for the next run.
func (mr *memberRun) settleKept(err error) error {
	mr.mu.Lock()
	k := mr.keep
	mr.keep = nil
	mr.mu.Unlock()
	switch {
	case k == nil && (errors.Is(err, errMemberChanged) || errors.Is(err, errMemberGone)):
		// Kept by an earlier run of the archive as it was.
		if rerr := os.Remove(filepath.Join(mr.j.Dest, filepath.FromSlash(mr.m.Name+packedSuffix))); rerr == nil {
			return mr.q.SetPieces(mr.j.ID, mr.m.Name, piece.NewBitfield(mr.count))
		}
		return nil
	case k == nil:
		return nil
	case err == nil:
		return k.close(true)
	case errors.Is(err, ziprange.ErrChecksum):
		return k.forget(mr.q, mr.j.ID, mr.m.Name)
	}
	return k.close(false)
}

// landMember records a member that landed: every piece that covers it
// done (the segment map of a done member job shows them so after a
// restart too), then the file verified as snap says.
func landMember(q *queue.Queue, id int64, name string, snap *engine.Snapshot) error {
	b, _, err := q.Pieces(id, name)
	if err != nil {
		return err
	}
	for i := range b.Len() {
		b.Set(i)
	}
	if err := q.SetPieces(id, name, b); err != nil {
		return err
	}
	return q.Landed(id, name, snap)
}

// memberError is a member's extraction error, when the run was not
// stopped, as a sentence a user understands (as braid get --member says
// them), nil for nil.
func memberError(name string, err error) error {
	var me *ziprange.MethodError
	var ne *metalink.NameError
	switch {
	case err == nil:
		return nil
	case errors.Is(err, ziprange.ErrNoRanges), errors.Is(err, transport.ErrNoRanges):
		return errMemberNoRanges
	case errors.Is(err, ziprange.ErrEncrypted), errors.Is(err, ziprange.ErrFolder), errors.As(err, &me):
		return fmt.Errorf("%s: %w", name, err)
	case errors.As(err, &ne):
		return fmt.Errorf("%s: its name is refused, and nothing is written for it: %s", name, ne.Rule)
	case errors.Is(err, ziprange.ErrChecksum):
		return fmt.Errorf("%s: %w; nothing is kept", name, err)
	case errors.Is(err, errMemberGone), errors.Is(err, errMemberChanged):
		return fmt.Errorf("%s: %w", name, err)
	}
	return fmt.Errorf("%s could not be fetched: %w", name, err)
}

var (
	errMemberGone    = errors.New("the archive no longer has this member; it may have been replaced by another version")
	errMemberChanged = errors.New("the archive's member is no longer the one added (its size or CRC-32 changed); add it again from the archive")
)

// memberRun is one run of a member job: what its archive's mirrors
// delivered of the member's bytes, for its snapshots.
type memberRun struct {
	j       queue.Job
	m       queue.Member
	length  int64 // the archive's piece length
	first   int   // the archive's first piece that covers the member
	count   int   // how many pieces cover it
	start   int64 // the member's first byte in the archive; -1 unknown
	end     int64
	began   time.Time
	mirrors []metalink.URL

	mu     sync.Mutex
	ranges *engine.Ranges
	reads  []*memberRead // ranges of the archive read since the directory
	lastAt time.Time
	lastB  int64
	speed  int64
	sent   []int64 // each mirror's bytes at the last snapshot
	q      *queue.Queue
	keep   *packedKeep // the packed bytes kept (memberkeep.go); nil: none
}

func newMemberRun(j queue.Job, m queue.Member, archive metalink.File) *memberRun {
	length := piece.PlanFor(archive).Length
	if length <= 0 {
		length = piece.DefaultLength
	}
	first, count := m.Covering(length)
	start, end := m.Span()
	mr := &memberRun{j: j, m: m, length: length, first: first, count: count, start: start, end: end,
		began: time.Now(), mirrors: archive.URLs}
	return mr
}

// extract opens the archive's directory through the engine's ranges and
// extracts the member into the job's folder.
func (mr *memberRun) extract(ctx context.Context, c *engine.Client, req *engine.Request) (ziprange.Extracted, error) {
	ranges, err := c.OpenRanges(ctx, req)
	if err != nil {
		return ziprange.Extracted{}, err
	}
	defer ranges.Close()
	mr.mu.Lock()
	mr.ranges = ranges
	mr.mu.Unlock()
	a, err := ziprange.Open(ctx, &memberSource{src: ranges, run: mr}, ranges.Size())
	if err != nil {
		return ziprange.Extracted{}, err
	}
	// From here on the reads are the member's: its local header, then its
	// compressed bytes.
	mr.mu.Lock()
	mr.reads = nil
	mr.mu.Unlock()
	zm := a.Member(mr.m.Name)
	switch {
	case zm == nil:
		return ziprange.Extracted{}, errMemberGone
	case zm.Size != mr.m.Size || zm.CRC32 != mr.m.CRC32:
		return ziprange.Extracted{}, errMemberChanged
	}
	if zm.HeaderOffset == mr.m.HeaderOffset {
		// What earlier runs kept of its packed bytes is read from disk,
		// and what arrives now is kept.
		k, err := openKeep(mr.q, mr.j, mr.m, mr.length, mr.first)
		if err != nil {
			return ziprange.Extracted{}, err
		}
		mr.mu.Lock()
		mr.keep = k
		mr.mu.Unlock()
	}
	return a.Extract(ctx, zm, mr.j.Dest)
}

// check names what checked the member: its CRC-32, and the archive's
// piece hashes when it has them.
func (mr *memberRun) check() string {
	mr.mu.Lock()
	r := mr.ranges
	mr.mu.Unlock()
	if r != nil {
		if t := r.Stats().PieceType; t != "" {
			return memberCheck + " and " + t + " pieces"
		}
	}
	return memberCheck
}

// memberSource is the archive's ranges, with each read recorded for the
// member's pieces.
type memberSource struct {
	src transport.Source
	run *memberRun
}

func (s *memberSource) Mirror() string { return s.src.Mirror() }

func (s *memberSource) ReadRange(ctx context.Context, off, n int64) (io.ReadCloser, error) {
	s.run.mu.Lock()
	k := s.run.keep
	s.run.mu.Unlock()
	var rc io.ReadCloser
	var err error
	if k != nil {
		rc, err = readKept(ctx, k, s.src.ReadRange, off, n)
	} else {
		rc, err = s.src.ReadRange(ctx, off, n)
	}
	if err != nil {
		return nil, err
	}
	r := &memberRead{rc: rc, run: s.run, from: off, to: off}
	s.run.mu.Lock()
	s.run.reads = append(s.run.reads, r)
	s.run.mu.Unlock()
	return r, nil
}

// memberRead is one range read: [from, to) delivered so far.
type memberRead struct {
	rc       io.ReadCloser
	run      *memberRun
	from, to int64 // guarded by run.mu
	closed   bool
}

func (r *memberRead) Read(p []byte) (int, error) {
	n, err := r.rc.Read(p)
	r.run.mu.Lock()
	r.to += int64(n)
	r.run.mu.Unlock()
	return n, err
}

func (r *memberRead) Close() error {
	r.run.mu.Lock()
	r.closed = true
	r.run.mu.Unlock()
	return r.rc.Close()
}

// snapshot is the member's download as a file's: the archive's pieces
// that cover it, done as their bytes have arrived (checked against the
// archive's piece hashes where it has them), and the member's bytes
// written, from its .part.
func (mr *memberRun) snapshot(state engine.State) engine.Snapshot {
	now := time.Now()
	s := engine.Snapshot{
		Name: mr.m.Name, Size: mr.m.Size, PieceLength: mr.length, State: state,
		ETA: -1, Elapsed: now.Sub(mr.began),
		Pieces: make([]engine.PieceState, mr.count), Filler: make([]int16, mr.count),
	}
	for i := range s.Filler {
		s.Filler[i] = -1
	}
	mr.mu.Lock()
	defer mr.mu.Unlock()
	type span struct {
		from, to int64
		open     bool
	}
	spans := make([]span, 0, len(mr.reads))
	for _, r := range mr.reads {
		spans = append(spans, span{r.from, r.to, !r.closed})
	}
	slices.SortFunc(spans, func(a, b span) int { return cmp.Compare(a.from, b.from) })
	// covered reports whether [a, b) arrived whole, and active whether a
	// read still open is on it.
	covered := func(a, b int64) (done, active bool) {
		at := a
		for _, sp := range spans {
			if sp.open && sp.from < b && sp.to >= a {
				active = true
			}
			if sp.from <= at && sp.to > at {
				at = sp.to
			}
		}
		return at >= b, active
	}
	var arrived int64
	for i := range mr.count {
		p := int64(mr.first + i)
		a, b := p*mr.length, (p+1)*mr.length
		if mr.start >= 0 {
			a, b = max(a, mr.start), min(b, mr.end)
		}
		done, active := covered(a, b)
		switch {
		case state == engine.StateDone, done, mr.keep != nil && mr.keep.has(i):
			s.Pieces[i] = engine.PieceDone
			s.Verified++
			arrived += b - a
		case active:
			s.Pieces[i] = engine.PieceActive
		}
	}
	if state == engine.StateDone {
		s.Bytes = mr.m.Size
	} else if fi, err := os.Stat(filepath.Join(mr.j.Dest, filepath.FromSlash(mr.m.Name)+".part")); err == nil && fi.Mode().IsRegular() {
		s.Bytes = min(fi.Size(), mr.m.Size)
	} else if span := mr.end - mr.start; mr.start >= 0 && span > 0 {
		s.Bytes = min(mr.m.Size, arrived*mr.m.Size/span)
	}
	if mr.ranges != nil {
		st := mr.ranges.Stats()
		s.Checked = st.PieceType != ""
		var wire int64
		for k, m := range st.Mirrors {
			ms := engine.MirrorSnapshot{URL: m.URL, Host: hostOfURL(m.URL), Bytes: m.Bytes, Useful: m.Bytes, Strikes: m.Strikes}
			if k < len(mr.mirrors) {
				ms.Location, ms.Priority = mr.mirrors[k].Location, mr.mirrors[k].Priority
			}
			switch {
			case m.Dropped != "":
				ms.State, ms.Reason = engine.MirrorDropped, m.Dropped
			case state == engine.StateDownloading && k < len(mr.sent) && m.Bytes > mr.sent[k]:
				ms.State = engine.MirrorActive // it sent since the last look
			}
			if k >= len(mr.sent) {
				mr.sent = append(mr.sent, 0)
			}
			mr.sent[k] = m.Bytes
			wire += m.Bytes
			s.Mirrors = append(s.Mirrors, ms)
		}
		if !mr.lastAt.IsZero() && now.Sub(mr.lastAt) >= time.Second/2 {
			mr.speed = int64(float64(wire-mr.lastB) / now.Sub(mr.lastAt).Seconds())
			mr.lastAt, mr.lastB = now, wire
		} else if mr.lastAt.IsZero() {
			mr.lastAt, mr.lastB = now, wire
		}
		if state == engine.StateDownloading {
			s.Speed = max(mr.speed, 0)
		}
	}
	return s
}

// hostOfURL is a mirror's host[:port] for its legend.
func hostOfURL(raw string) string {
	if u, err := url.Parse(raw); err == nil && u.Host != "" {
		return u.Host
	}
	return raw
}
