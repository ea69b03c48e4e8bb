package bridge

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"slices"
	"strconv"
	"time"

	"fyne.io/fyne/v2/lang"

	"braid/engine"
	"braid/engine/explain"
	"braid/engine/metalink"
	"braid/engine/piece"
	"braid/engine/torrent"
	"braid/queue"
	"braid/runner"
	"braid/ui"
)

// Jobs lists the queue, with live progress for the jobs in hand.
func (b *Backend) Jobs() ([]ui.Job, error) {
	list, err := b.q.List()
	if err != nil {
		return nil, err
	}
	trust, err := b.q.Trust()
	if err != nil {
		return nil, err
	}
	held := ""
	if st, err := b.q.Settings(); err == nil {
		held = heldText(st.Schedule, time.Now())
	}
	b.readOrganise(list)
	b.mu.Lock()
	defer b.mu.Unlock()
	b.trust = trust
	clear(b.known)
	b.syncJobs = b.syncJobs[:0]
	out := make([]ui.Job, len(list))
	for i, j := range list {
		b.known[j.ID] = j
		if j.Sync {
			b.syncJobs = append(b.syncJobs, j.ID)
		}
		out[i] = b.viewLocked(j)
		if out[i].State == ui.Queued && out[i].Err == "" {
			out[i].Err = held
		}
	}
	return out, nil
}

// heldText says why the schedule holds the queued jobs at t, "" when it
// lets them run: "all downloads paused until 14:30", "outside the
// schedule; downloads start at Mon 22:00".
func heldText(s queue.Schedule, t time.Time) string {
	if s.Allowed(t) {
		return ""
	}
	at := func(when time.Time) string {
		if when.Sub(t) < 20*time.Hour {
			return when.Local().Format("15:04")
		}
		return when.Local().Format("Mon 15:04")
	}
	if t.Before(s.PausedUntil) {
		return fmt.Sprintf(lang.L("all downloads paused until %s"), at(s.PausedUntil))
	}
	if next, ok := s.NextChange(t); ok {
		return fmt.Sprintf(lang.L("outside the schedule; downloads start at %s"), at(next))
	}
	return lang.L("outside the schedule")
}

// Active returns the jobs in hand and, while the runner works through
// the queue, the queued jobs it will reach.
func (b *Backend) Active() []ui.Job {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.pruneLocked() {
		b.changed()
	}
	var out []ui.Job
	for id, l := range b.live {
		if !b.stopped[id] {
			b.refreshLocked(id, l)
			out = append(out, b.viewLocked(l.job))
		}
	}
	out = append(out, b.activeSyncsLocked()...)
	out = append(out, b.seedingLocked()...)
	if b.busy {
		for id, j := range b.known {
			if j.State == queue.Queued && b.live[id] == nil && !b.syncing[id] {
				out = append(out, b.viewLocked(j))
			}
		}
	}
	return out
}

// viewLocked is a job as the window shows it: the queue's record, with
// live bytes and speed when it is in hand.
func (b *Backend) viewLocked(j queue.Job) ui.Job {
	_, _, done, size := j.Progress()
	v := ui.Job{
		ID:       ui.JobID(j.ID),
		Added:    j.AddedAt,
		Name:     j.Name(),
		Source:   queue.Redact(j.Source),
		Dir:      j.Dest,
		State:    jobState(j.State),
		Size:     size,
		Done:     done,
		ETA:      -1,
		Mismatch: j.Mismatch,
		Limit:    b.limitOf(j), // joblimit.go
	}
	v.Err, v.ErrDetail = ui.Explain(queue.Redact(j.Error))
	if j.Sync {
		return b.syncViewLocked(j, v)
	}
	b.organiseLocked(j, &v)
	v.Mend = mendOf(j) // login.go
	if v.Name == "" {
		v.Name = v.Source
	}
	trustLocked(&v, j, b.trust[j.ID])
	if v.State == ui.Done && v.Outcome != "" && !v.Unverified {
		// Pieces of its files rebuilt from parity.
		v.Outcome += ui.RebuiltTextOr(b.rebuiltLocked(j))
	}
	for _, f := range j.Files {
		if f.Selected && f.Size < 0 {
			v.Size = -1
		}
	}
	b.torrentViewLocked(&v)
	if v.State == ui.Done {
		v.SeedNote = seedNote(b.runner.NotSeedingAgain(j.ID))
	}
	v.CheckNote = b.unrecorded[j.ID]
	if b.seedPaused[j.ID] && (j.State == queue.Done || j.State == queue.Running) {
		// Whatever the run's last reading still says (it is let go of
		// within a second), and though the run that downloaded it may
		// not have recorded it done yet: the user paused its seeding.
		v.State, v.Err = ui.Paused, lang.L("seeding paused; Resume seeds again")
		return v
	}
	l := b.live[j.ID]
	if l == nil || b.stopped[j.ID] {
		if j.State == queue.Running && !j.NextTry.IsZero() {
			// The queue says it waits: another process runs it, or its
			// link is read again (its error says why, when it does).
			v.State, v.NextTry = ui.Waiting, j.NextTry
			if v.Err == "" {
				v.Err = lang.L("waiting for the network")
			}
		}
		return v
	}
	v.State = l.state
	if l.checking != "" {
		// How far the check is: the file it reads, or the bad pieces
		// mended so far.
		v.Err, v.ErrDetail = "", ""
		switch {
		case l.bad > 0:
			v.Err = fmt.Sprintf(lang.N("%s of %s bad pieces mended", l.bad), count(l.mended), count(l.bad))
		case l.checking != "starting":
			v.Err = fmt.Sprintf(lang.L("checking %s"), l.checking)
		}
		return v
	}
	v.Done = 0
	for _, f := range j.Files {
		if f.Selected {
			v.Done += max(f.DoneBytes, l.files[f.Name].bytes)
		}
	}
	if v.Size < 0 {
		v.Size = lateSize(j, l)
	}
	// The job's speed is its running files' together; it waits when
	// every one of them waits, until the first next try.
	var speed int64
	waiting, running := true, false
	for _, f := range l.files {
		if ended(f.state) {
			continue
		}
		running = true
		speed += f.speed
		v.Skipping += f.skipping
		v.Rebuilding += f.rebuilding
		if f.size < 0 {
			v.Size = -1 // shown without a percentage until a mirror says
		}
		if f.state != engine.StateWaiting {
			waiting = false
			continue
		}
		if v.NextTry.IsZero() || (!f.nextTry.IsZero() && f.nextTry.Before(v.NextTry)) {
			v.NextTry = f.nextTry
		}
		if f.held != "" {
			v.Err, v.ErrDetail = f.held, ""
		}
		if v.Err == "" {
			v.Err, v.ErrDetail = ui.Explain(queue.Redact(f.reason))
		}
	}
	if running && waiting {
		v.State = ui.Waiting
		if v.Err == "" {
			v.Err = lang.L("waiting for the network")
		}
	} else {
		v.NextTry = time.Time{}
	}
	if v.Size >= 0 {
		// The size of a file the document did not give is known once a
		// mirror says.
		v.Size = max(v.Size, v.Done)
	}
	v.Speed = float64(speed)
	if v.Speed > 0 && v.Size > 0 {
		v.ETA = time.Duration(float64(v.Size-v.Done+v.Skipping) / v.Speed * float64(time.Second))
	}
	return v
}

func jobState(s queue.State) ui.JobState {
	switch s {
	case queue.Queued:
		return ui.Queued
	case queue.Running:
		return ui.Running
	case queue.Paused:
		return ui.Paused
	case queue.Done:
		return ui.Done
	}
	return ui.Failed
}

// Detail returns one job's files, mirrors and, when asked, pieces: live for
// the file the engine is on, from the stored bitfield for the others.
func (b *Backend) Detail(id ui.JobID, pieces bool) (ui.Detail, error) {
	b.mu.Lock()
	l := b.live[int64(id)]
	var j queue.Job
	var view ui.Job
	var snap *engine.Snapshot
	var others map[string]fileLive // the job's other live files
	if l != nil && l.job.Doc != nil && l.checking == "" {
		b.refreshLocked(int64(id), l)
		others = maps.Clone(l.files)
		j = l.job
		view = b.viewLocked(j) // from the same reading as the files
		s := l.snap
		if pieces {
			// The copy keeps the window's view still while the next
			// read rewrites the bridge's.
			s.Pieces = append([]engine.PieceState(nil), l.snap.Pieces...)
			s.Filler = append([]int16(nil), l.snap.Filler...)
		}
		s.Mirrors = append([]engine.MirrorSnapshot(nil), l.snap.Mirrors...)
		snap = &s
	}
	b.mu.Unlock()
	if snap == nil {
		var err error
		if j, err = b.q.Get(int64(id)); err != nil {
			return ui.Detail{}, err
		}
		b.mu.Lock()
		view = b.viewLocked(j)
		b.mu.Unlock()
	}
	if j.Sync {
		return b.syncDetail(j, view)
	}
	d := ui.Detail{Job: view, Origin: queue.Redact(j.Doc.Origin)}
	var parity map[string]metalink.ParitySet
	if j.Doc != nil {
		parity = metalink.ParitySets(j.Doc.Files)
	}
	for _, f := range j.Files {
		if !f.Selected {
			continue
		}
		mf := docFile(j.Doc, f.Name)
		d.Publisher = cmpOr(d.Publisher, mf.Publisher.Name)
		d.Identity = cmpOr(d.Identity, mf.Identity)
		d.Version = cmpOr(d.Version, mf.Version)
		d.Description = cmpOr(d.Description, mf.Description)
		d.License = cmpOr(d.License, mf.License.Name)
		fd := fileDetail(j, f, mf)
		if set, ok := parity[f.Name]; ok {
			fd.HasParity, fd.ParityBlocks = true, set.Blocks()
		}
		if j.State == queue.Done && view.State != ui.Seeding {
			onDisk(&fd, j, f)
		}
		switch {
		case snap != nil && snap.Name == f.Name:
			applySnapshot(&fd, snap, pieces)
		case others[f.Name] != (fileLive{}) && !ended(others[f.Name].state):
			// Downloading beside the file the pane follows.
			fl := others[f.Name]
			fd.State, fd.Done, fd.Speed = ui.FileRunning, max(fd.Done, fl.bytes), float64(fl.speed)
			if fl.size >= 0 {
				fd.Size = fl.size
			}
		case !pieces:
			b.mu.Lock()
			last := b.recent[fileKey{j.ID, f.Name}]
			b.mu.Unlock()
			if last != nil {
				// Finished this session: what each mirror sent is known.
				pastMirrors(&fd, last)
			}
		default:
			bits, _, err := b.q.Pieces(j.ID, f.Name)
			if err != nil {
				break
			}
			fd.Pieces = storedPieces(bits)
			b.mu.Lock()
			last := b.recent[fileKey{j.ID, f.Name}]
			bad := b.bad[fileKey{j.ID, f.Name}]
			b.mu.Unlock()
			for _, i := range bad {
				// Found bad by the last Verify: not done, whatever the
				// bitfield says.
				if i < len(fd.Pieces.State) {
					fd.Pieces.State[i] = ui.PieceBad
				}
			}
			if last != nil && len(last.Pieces) == bits.Len() {
				// Finished this session: who filled each piece is known.
				applyPast(&fd, last, bits)
			}
		}
		if snap == nil || snap.Name != f.Name {
			// Verified with pieces rebuilt from parity: the queue's
			// words say by which hash, and how many pieces parity gave
			// (the last snapshot's count, this session; moved or deleted
			// since, the file's state says so; its check found what it
			// found).
			b.mu.Lock()
			if f.Verified && fd.State != ui.FileUnverified {
				fd.Verification += ui.RebuiltTextOr(rebuiltOf(f, b.recent[fileKey{j.ID, f.Name}]))
			}
			b.mu.Unlock()
		}
		d.Files = append(d.Files, fd)
	}
	b.storedTorrentDetail(&d, j, pieces)
	b.torrentDetail(&d, pieces)
	b.swarmDetail(&d, j) // swarm.go
	b.checkDetail(&d)
	for i := range d.Files {
		b.checkNote(&d.Files[i], j.ID, d.State) // check.go
	}
	b.trustDetail(&d)
	return d, nil
}

// checkDetail says how far a repair under way is on its file.
func (b *Backend) checkDetail(d *ui.Detail) {
	b.mu.Lock()
	defer b.mu.Unlock()
	l := b.live[int64(d.ID)]
	if l == nil || l.checking == "" || l.bad == 0 {
		return
	}
	for i := range d.Files {
		if d.Files[i].Name == l.checking {
			d.Files[i].Verification = fmt.Sprintf(lang.N("%s of %s bad pieces mended", l.bad), count(l.mended), count(l.bad))
		}
	}
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func docFile(doc *metalink.Document, name string) metalink.File {
	if doc != nil {
		for _, f := range doc.Files {
			if f.Name == name {
				return f
			}
		}
	}
	return metalink.File{Name: name, Size: -1}
}

// fileDetail is a file as the queue remembers it.
func fileDetail(j queue.Job, f queue.File, mf metalink.File) ui.FileDetail {
	fd := ui.FileDetail{
		Name:        f.Name,
		Size:        f.Size,
		Done:        f.DoneBytes,
		ETA:         -1,
		Hashes:      f.Hashes,
		PieceLength: f.Layout.Length,
	}
	if f.Path() != f.Name {
		fd.SavedAs = f.Path()
	}
	switch {
	case mf.Pieces != nil:
		fd.PieceHash = mf.Pieces.Type
	case torrent.HasTorrent(mf):
		// Every piece of a torrent is checked against its SHA-1.
		fd.PieceHash = "sha-1"
	}
	if mf.Signature != nil {
		fd.Signature = cmpOr(mf.Signature.MediaType, lang.L("signature"))
	}
	fd.PieceCount = f.Layout.Count()
	switch {
	case f.Verified:
		var unverified bool
		fd.Verification, unverified = fileOutcome(f)
		fd.State = ui.FileVerified
		if unverified {
			fd.State = ui.FileUnverified
		}
	case f.Mismatch:
		fd.State, fd.Verification = ui.FileMismatch, lang.L("did not match its hash")
		if j.State == queue.Failed {
			fd.Err, fd.ErrDetail = ui.Explain(queue.Redact(j.Error))
		}
	case j.State == queue.Running && !j.NextTry.IsZero():
		fd.State = ui.FileWaiting // as the row says: it waits for the network
	case j.State == queue.Running:
		fd.State = ui.FileRunning
	case j.State == queue.Failed:
		fd.State = ui.FileFailed
		fd.Err, fd.ErrDetail = ui.Explain(queue.Redact(j.Error))
	case j.State == queue.Paused:
		fd.State = ui.FilePaused // as the row says, not "Waiting"
	case j.State == queue.Queued:
		fd.State = ui.FileQueued
	}
	for _, m := range f.Mirrors {
		fd.Mirrors = append(fd.Mirrors, ui.MirrorDetail{
			URL:      queue.Redact(m.URL),
			Host:     hostOf(m.URL),
			Location: m.Location,
			Priority: m.Priority,
			Bytes:    -1, // the queue keeps strikes, not bytes: known once it runs
			Strikes:  m.Strikes,
		})
	}
	return fd
}

// applySnapshot overlays the engine's live view of the file.
func applySnapshot(fd *ui.FileDetail, s *engine.Snapshot, pieces bool) {
	fd.Size, fd.Done, fd.Speed, fd.ETA = s.Size, s.Bytes, float64(s.Speed), s.ETA
	if s.PieceLength > 0 {
		fd.PieceLength = s.PieceLength
	}
	if len(s.Pieces) > 0 {
		fd.PieceCount = len(s.Pieces)
	}
	switch s.State {
	case engine.StateStarting, engine.StateDownloading:
		fd.State = ui.FileRunning
	case engine.StateWaiting:
		fd.State = ui.FileWaiting
		// No next try while the tries are under way (connections
		// open, no answer yet).
		next := lang.L("trying again now")
		if w := ui.NextTryText(s.NextTry); w != "" {
			next = w
		}
		fd.Err = fmt.Sprintf(lang.L("waiting for the network, %s"), next)
		if s.Held != "" {
			fd.Err = s.Held
			break
		}
		for _, m := range s.Mirrors {
			if m.Reason != "" {
				// Why: the first mirror's reason, in a sentence.
				why, detail := ui.Explain(queue.Redact(m.Reason))
				fd.Err = fmt.Sprintf(lang.L("%s Waiting; %s."), why, next)
				fd.ErrDetail = detail
				break
			}
		}
	case engine.StateVerifying:
		fd.State = ui.FileVerifying
	case engine.StateDone:
		fd.State, fd.Verification = ui.FileVerified, verifiedText(queue.ProofWords(s.VerifiedBy))+ui.RebuiltTextOr(s.Rebuilt)
		if s.VerifiedBy == "" {
			fd.State, fd.Verification = ui.FileUnverified, notVerifiedText()
		}
	case engine.StateFailed:
		fd.State = ui.FileFailed
		if errors.Is(s.Err, engine.ErrHashMismatch) {
			fd.State = ui.FileMismatch
		}
	case engine.StateCanceled:
		fd.State = ui.FileWaiting
	}
	if s.Err != nil {
		fd.Err, fd.ErrDetail = ui.Sentence(explain.Of(s.Err)), queue.Redact(s.Err.Error())
	}
	if s.Checked {
		fd.Verification = fmt.Sprintf(lang.L("%s of %s pieces checked against their hashes so far"), count(s.Verified), count(len(s.Pieces)))
	}
	if s.Rebuilding > 0 {
		fd.Verification = ui.RebuildingText(s.Rebuilding)
	}
	fd.Mirrors = fd.Mirrors[:0]
	for _, m := range s.Mirrors {
		fd.Mirrors = append(fd.Mirrors, ui.MirrorDetail{
			URL:      queue.Redact(m.URL),
			Host:     m.Host,
			Location: m.Location,
			Priority: m.Priority,
			State:    mirrorState(m.State),
			Speed:    float64(m.Speed),
			Bytes:    m.Bytes,
			Strikes:  m.Strikes,
			Err:      mirrorWhy(m),
		})
	}
	if pieces {
		fd.Pieces = ui.PieceMap{State: make([]ui.PieceState, len(s.Pieces)), Mirror: s.Filler}
		for i, p := range s.Pieces {
			fd.Pieces.State[i] = ui.PieceState(p)
		}
		if s.Rebuilding > 0 {
			// The pieces that failed their hash are the ones being
			// rebuilt from parity (no mirror sent them good): in hand,
			// in parity's colour, not the red of a piece waiting for a
			// mirror. The engine's fillers are its own: copied first.
			fd.Pieces.Mirror = slices.Clone(s.Filler)
			for i, p := range s.Pieces {
				if p == engine.PieceBad && i < len(fd.Pieces.Mirror) {
					fd.Pieces.State[i], fd.Pieces.Mirror[i] = ui.PieceActive, ui.RebuiltFromParity
				}
			}
		}
	}
}

// rebuiltLocked is how many pieces of j's files were rebuilt from parity
// in the downloads that landed them (rebuiltOf).
func (b *Backend) rebuiltLocked(j queue.Job) int {
	n := 0
	for _, f := range j.Files {
		if f.Selected {
			n += rebuiltOf(f, b.recent[fileKey{j.ID, f.Name}])
		}
	}
	return n
}

// rebuiltOf is how many pieces of f were rebuilt from parity: the count of
// its last download this session (last, the snapshot the engine let go
// of), else the one the queue kept when it landed, as after a restart.
func rebuiltOf(f queue.File, last *engine.Snapshot) int {
	if last != nil {
		return last.Rebuilt
	}
	return f.Rebuilt
}

// applyPast shows which mirror filled each done piece of a file that the
// engine let go of this session; states come from the queue's bitfield,
// which is the truth now.
func applyPast(fd *ui.FileDetail, s *engine.Snapshot, bits *piece.Bitfield) {
	for i := range fd.Pieces.State {
		if bits.Has(i) && i < len(s.Filler) && s.Pieces[i] == engine.PieceDone {
			fd.Pieces.Mirror[i] = s.Filler[i]
		}
	}
	pastMirrors(fd, s)
}

// pastMirrors shows what each mirror did in a download of this session
// that the engine let go of.
func pastMirrors(fd *ui.FileDetail, s *engine.Snapshot) {
	fd.Mirrors = fd.Mirrors[:0]
	for _, m := range s.Mirrors {
		fd.Mirrors = append(fd.Mirrors, ui.MirrorDetail{
			URL: queue.Redact(m.URL), Host: m.Host, Location: m.Location, Priority: m.Priority,
			State: ui.MirrorIdle, Bytes: m.Bytes, Strikes: m.Strikes, Err: mirrorWhy(m),
		})
	}
}

func mirrorState(s engine.MirrorState) ui.MirrorState {
	switch s {
	case engine.MirrorActive:
		return ui.MirrorActive
	case engine.MirrorRetrying:
		return ui.MirrorWaiting
	case engine.MirrorDropped:
		return ui.MirrorDropped
	}
	return ui.MirrorIdle
}

// storedPieces shows a bitfield from the queue: done pieces, by no mirror
// of this session.
func storedPieces(bits *piece.Bitfield) ui.PieceMap {
	n := bits.Len()
	p := ui.PieceMap{State: make([]ui.PieceState, n), Mirror: make([]int16, n)}
	for i := range n {
		p.Mirror[i] = ui.NoMirror
		if bits.Has(i) {
			p.State[i] = ui.PieceDone
		}
	}
	return p
}

func hostOf(raw string) string {
	if h := queue.HostOf(raw); h != "" {
		return h
	}
	return queue.Redact(raw)
}

// mirrorReason is why a mirror waits or was dropped, in a sentence.
// mirrorWhy is what the Mirrors tab says of m beside its state, in a
// sentence: why it is retrying or dropped, else why it is still used after
// sending pieces that fail their hash.
func mirrorWhy(m engine.MirrorSnapshot) string {
	why, _ := ui.Explain(queue.Redact(cmpOr(m.Reason, m.StrikesWhy)))
	return why
}

func count(n int) string { return strconv.Itoa(n) }

// seedNote says why a done torrent did not seed on (runner.SeedAgain);
// "" when it did or was not to.
func seedNote(err error) string {
	var gone *runner.SeedGoneError
	switch {
	case err == nil:
		return ""
	case errors.As(err, &gone) && gone.Changed:
		return fmt.Sprintf(lang.L("not seeding: %s has changed since it was downloaded"), path.Base(gone.File))
	case errors.As(err, &gone):
		return fmt.Sprintf(lang.L("not seeding: %s is no longer in its folder"), path.Base(gone.File))
	}
	why, _ := ui.Explain(queue.Redact(err.Error()))
	return fmt.Sprintf(lang.L("not seeding: %s"), why)
}

// onDisk marks a done file the user moved, deleted or resized since as
// such, not "Verified": what was checked is no longer there
// (queue.Job.OnDisk). It runs for the job the pane shows, and not while
// a torrent seeds from the files, as the pane reads it at every tick then.
func onDisk(fd *ui.FileDetail, j queue.Job, f queue.File) {
	if fd.State != ui.FileVerified && fd.State != ui.FileUnverified {
		return
	}
	switch err := j.OnDisk(f); {
	case errors.Is(err, fs.ErrNotExist):
		fd.State = ui.FileMissing
	case errors.Is(err, queue.ErrResized):
		fd.State = ui.FileChanged
	}
}

// lateSize is the size of a job with files the document gave no size for,
// once a mirror of each has said it (the file's live snapshot); -1 while
// one is still unknown. The queue records it when the file is done.
func lateSize(j queue.Job, l *live) int64 {
	var n int64
	for _, f := range j.Files {
		if !f.Selected {
			continue
		}
		size := f.Size
		if size < 0 {
			fl, ok := l.files[f.Name]
			if !ok || fl.size < 0 {
				return -1
			}
			size = fl.size
		}
		n += size
	}
	return n
}
