package runner

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	neturl "net/url"

	"braid/engine"
	"braid/engine/metalink"
	"braid/engine/netconf"
	"braid/engine/piece"
	"braid/engine/resourcesync"
	"braid/engine/rootfile"
	"braid/queue"
)

// DefaultSyncJobs is how many files a sync runs at once by default.
const DefaultSyncJobs = 4

// SyncOptions configure queue.Queue.Sync.
type SyncOptions struct {
	Client  *engine.Client        // runs the downloads; required
	Fetcher *resourcesync.Fetcher // reads the source's documents; nil: one on Client's HTTP client wearing Net
	// Net is the logins, cookies and headers the documents and the files
	// are fetched with (nil: none but .netrc's and what the URLs carry).
	Net    *netconf.Session
	Jobs   int  // files at once; 0: DefaultSyncJobs
	Delete bool // remove files the source deleted (default: list them)
	Check  bool // report what differs, download nothing
	// Locations are the user's countries, for mirror order.
	Locations []string
	// Observer, when set, hears every outcome (see Sync) and the
	// downloads' progress.
	Observer Observer
	// Job is the sync job whose sets these are (queue.NewJob.Sync): its
	// FileRuns carry it. 0: none, a folder only checked (Check).
	Job int64
	// sized, when set, hears the bytes of each set's resources to sync
	// (-1: a size not listed), for a SyncJob's Snapshot.
	sized func(bytes int64)
}

// SyncKind names what happened to one file in a sync.
type SyncKind string

// The outcomes of a sync, as its counts (SyncResult), SyncEvent.Kind and
// in --json.
const (
	SyncFetched SyncKind = "fetched" // downloaded and verified
	SyncKept    SyncKind = "kept"    // already right on disk: not fetched
	SyncFailed  SyncKind = "failed"  // could not be fetched or verified
	SyncSkipped SyncKind = "skipped" // refused: another host, an unsafe path
	SyncGone    SyncKind = "gone"    // deleted at the source, kept here (no --delete)
	SyncDeleted SyncKind = "deleted" // deleted at the source, and here
	SyncMissing SyncKind = "missing" // --check: not on disk
	SyncChanged SyncKind = "changed" // --check: on disk, but not the source's
	SyncExtra   SyncKind = "extra"   // --check: on disk, not at the source
	SyncWarning SyncKind = "warning" // something skipped in a document
)

// SyncEvent is one outcome of a sync, as a SyncJob keeps it (its
// Snapshot's Events) from what its Observer was told (SyncEventOfNote,
// SyncEventOfResult).
type SyncEvent struct {
	Kind  SyncKind
	Name  string // path below the folder; for skipped and warning, the URL or document
	Bytes int64  // bytes downloaded, for fetched
	Size  int64  // the file's size, for kept (-1 unknown)
	// Verified is the hash a fetched file was verified by ("sha-256",
	// "sha-1 pieces"); "" when the source published none.
	Verified string
	Err      error // why, for failed, skipped and warning
}

// SyncEventOfNote is the outcome a sync's Note tells.
func SyncEventOfNote(n Note) SyncEvent {
	return SyncEvent{Kind: n.Sync, Name: n.File, Size: n.Size, Err: n.Err}
}

// SyncEventOfResult is the outcome a sync's Result tells: fetched or
// failed. It reports false for a download the sync's end interrupted
// (its Err is the context's own error), which is no outcome.
func SyncEventOfResult(r Result) (SyncEvent, bool) {
	if r.Err == context.Canceled || r.Err == context.DeadlineExceeded {
		return SyncEvent{}, false
	}
	if r.Err != nil {
		return SyncEvent{Kind: SyncFailed, Name: r.File, Err: r.Err}, true
	}
	e := SyncEvent{Kind: SyncFetched, Name: r.File}
	if r.Snapshot != nil {
		e.Bytes, e.Verified = r.Snapshot.Bytes, r.Snapshot.VerifiedBy
	}
	return e, true
}

// SyncResult sums up a sync.
type SyncResult struct {
	// Mode says how the source was compared, per set: "full" (first
	// sync), "changes" (Change Lists since the last sync) or "compare"
	// (the Resource List against the folder).
	Mode   []string
	Counts map[SyncKind]int
	Bytes  int64 // bytes downloaded
}

// OK reports whether the folder is now a verified copy of what the source
// lists (gone files may remain; --check: nothing differs).
func (r *SyncResult) OK() bool {
	return r.Counts[SyncFailed] == 0 && r.Counts[SyncMissing] == 0 && r.Counts[SyncChanged] == 0
}

// Sync makes dir a verified copy of the ResourceSync source: the first
// time every resource, later only what the Change Lists say changed (or,
// when they do not cover the time since, what differs from the Resource
// List). Files already right are never fetched again; files run
// o.Jobs at a time through o.Client. What was synced, and the source's
// time, are recorded in the queue: each file as it verifies, the time only
// when every file of the set did, so an interrupted sync compares again
// next time. The error is for the sync as a whole (the source unreadable,
// the queue failing, ctx canceled); per-file failures are counts, and
// what o.Observer is told:
//   - a file downloaded: Start, Progress once an Interval, and its Result
//     (Err nil: fetched, Snapshot.VerifiedBy says by what; else failed;
//     context.Canceled when the sync was interrupted, which is no failure);
//   - a file that failed before any download (its check, its deletion,
//     recording it): a Result with no Snapshot;
//   - what a sync finds without downloading (kept, gone, deleted,
//     missing, changed, extra): a Note of kind NoteSync (Sync says which);
//   - a resource refused (another host, an unsafe path): NoteSkipped, with
//     File its URL; something skipped in a document: NoteWarning, with
//     File the document or the file.
//
// Every Note and Result names the source (Source).
func Sync(ctx context.Context, q *queue.Queue, source, dir string, o SyncOptions) (*SyncResult, error) {
	if o.Client == nil {
		return nil, errors.New("sync: no engine client")
	}
	if o.Fetcher == nil {
		o.Fetcher = &resourcesync.Fetcher{HTTP: o.Net.Client(o.Client.HTTPClient())}
	}
	if o.Jobs <= 0 {
		o.Jobs = DefaultSyncJobs
	}
	base, err := resourcesync.Base(source)
	if err != nil {
		return nil, err
	}
	sets, err := o.Fetcher.Discover(ctx, source)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("sync: %w", err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("sync: %w", err)
	}
	defer root.Close()
	obs := o.Observer
	if obs == nil {
		obs = Quiet{}
	}
	r := &syncRun{q: q, o: o, obs: obs, source: source, base: base, dir: dir, root: root, res: &SyncResult{Counts: map[SyncKind]int{}}, listed: map[string]bool{}}
	for _, s := range sets {
		if err := r.set(ctx, s); err != nil {
			return r.res, err
		}
	}
	if o.Check {
		if err := r.extra(); err != nil {
			return r.res, err
		}
	}
	if err := ctx.Err(); err != nil {
		return r.res, fmt.Errorf("sync interrupted (run it again to finish): %w", err)
	}
	return r.res, nil
}

// syncRun is one call of Sync.
type syncRun struct {
	q      *queue.Queue
	o      SyncOptions
	obs    Observer // o.Observer, or one that hears nothing
	source string
	base   *neturl.URL
	dir    string
	root   *os.Root
	// fetcher downloads the files (fetch): a sync's downloads are no
	// job's, and no Runner's Live lists them.
	fetcher Runner

	mu     sync.Mutex // guards res, listed, gone and emptied
	res    *SyncResult
	listed map[string]bool // every name the source lists, for extra
	// gone are the deletions of the set being synced that were kept here
	// (no --delete): the next sync must list them again.
	gone []*resourcesync.Resource

	// emptied are the folders of the files deleted, removed when empty
	// once every file is done (see pruneFolders).
	emptied []string

	recMu     sync.Mutex         // guards the fields below; held while a batch is recorded
	pending   []queue.SyncedFile // verified, not yet recorded (see record)
	flushed   time.Time          // when a batch was last recorded
	recFailed bool               // the queue failed to record a batch
}

// count adds an outcome of kind to the sync's result, with the bytes it
// downloaded.
func (r *syncRun) count(kind SyncKind, bytes int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.res.Counts[kind]++
	r.res.Bytes += bytes
}

// note counts what the sync found of name without downloading it, and
// tells the Observer: NoteSkipped and NoteWarning for those kinds (err
// says why), a NoteSync otherwise.
func (r *syncRun) note(kind SyncKind, name string, err error) {
	r.count(kind, 0)
	n := Note{Kind: NoteSync, Source: r.source, File: name, Sync: kind, Err: err}
	switch kind {
	case SyncSkipped:
		n.Kind = NoteSkipped
	case SyncWarning:
		n.Kind = NoteWarning
	}
	if err != nil {
		n.Message = err.Error()
	}
	r.obs.Note(n)
}

// failed counts a file that failed before any download of it, and tells
// the Observer its Result.
func (r *syncRun) failed(name string, err error) {
	r.count(SyncFailed, 0)
	r.obs.Result(Result{Source: r.source, File: name, Err: err})
}

// set syncs one set of resources.
func (r *syncRun) set(ctx context.Context, s resourcesync.Set) error {
	key := s.CapabilityList
	if key == "" {
		key = s.ResourceList + s.ChangeList
	}
	rec, err := r.q.SyncSet(r.o.Job, key, r.dir)
	if err != nil {
		return err
	}
	r.mu.Lock()
	r.gone = nil
	r.mu.Unlock()
	var (
		rs        []resourcesync.Resource
		refused   []metalink.Rejected
		at, until time.Time
		mode      string
	)
	if !rec.Until.IsZero() && s.ChangeList != "" && !r.o.Check {
		lists, err := r.o.Fetcher.ChangeLists(ctx, s.ChangeList, rec.Until)
		if err != nil && ctx.Err() != nil {
			return err
		}
		if err != nil {
			// The Resource List still tells what to fetch; it costs
			// hashing the folder, not downloading it again.
			r.note(SyncWarning, s.ChangeList, fmt.Errorf("comparing the Resource List instead: %w", err))
		}
		if cs := resourcesync.ChangesSince(lists, rec.Until); err == nil && cs.Covered {
			mode, at, until = "changes", rec.At, cs.Until
			for _, l := range lists {
				r.warnings(s.ChangeList, l.Warnings)
			}
			rs, refused = resourcesync.Resources(cs.Entries, r.base)
			if err := r.fillIn(ctx, s, rs); err != nil {
				return err
			}
		}
	}
	if mode == "" {
		if s.ResourceList == "" {
			return fmt.Errorf("%s: no Resource List to compare with, and the Change Lists do not cover the time since the last sync", key)
		}
		doc, err := r.o.Fetcher.List(ctx, s.ResourceList)
		if err != nil {
			return err
		}
		if doc.Capability != "" && doc.Capability != resourcesync.CapResourceList {
			return fmt.Errorf("%s: %w %q where a Resource List was named", s.ResourceList, resourcesync.ErrCapability, doc.Capability)
		}
		r.warnings(s.ResourceList, doc.Warnings)
		mode, at, until = "compare", doc.At, doc.At
		if rec.SyncedAt.IsZero() {
			mode = "full"
		}
		rs, refused = resourcesync.Resources(doc.Entries, r.base)
		// What the last sync wrote and the list no longer holds was
		// deleted at the source.
		now := map[string]bool{}
		for _, x := range rs {
			now[x.File.Name] = true
		}
		for name, f := range rec.Files {
			if !now[name] {
				rs = append(rs, resourcesync.Resource{Loc: f.URL, Change: resourcesync.ChangeDeleted, File: metalink.File{Name: name}})
			}
		}
	}
	r.mu.Lock()
	r.res.Mode = append(r.res.Mode, mode)
	r.mu.Unlock()
	if r.o.sized != nil {
		var size int64
		for _, x := range rs {
			if x.Change == resourcesync.ChangeDeleted {
				continue
			}
			if x.File.Size < 0 {
				size = -1
				break
			}
			size += x.File.Size
		}
		r.o.sized(size)
	}
	for _, x := range refused {
		r.note(SyncSkipped, x.Name, errors.New(x.Reason))
	}
	failed := r.apply(ctx, rec, rs)
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("sync interrupted (run it again to finish): %w", err)
	}
	if failed || r.o.Check {
		return nil
	}
	return r.q.SyncDone(rec.ID, at, r.keptUntil(mode, rec, until))
}

// keptUntil is the time the set is recorded in sync with: until, unless a
// deletion was kept here (no --delete). A later sync lists only the
// changes at or after the recorded time, and a later --delete must still
// find the deletion, so the time is held back: in "changes" mode to the
// earliest kept deletion (a change exactly at the time is listed again);
// after a comparison, whose deletions are the recorded files the list no
// longer holds and bear no time, to the last sync's time, so the next run
// lists the changes since then or compares again. Changes listed twice
// cost a look at files already right; every run that keeps the file says
// again that it is gone at the source.
func (r *syncRun) keptUntil(mode string, rec *queue.SyncSet, until time.Time) time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.gone) == 0 {
		return until
	}
	if mode != "changes" {
		return rec.Until
	}
	for _, x := range r.gone {
		if !x.Lastmod.IsZero() && x.Lastmod.Before(until) {
			until = x.Lastmod
		}
	}
	return until
}

// fillIn gives changes that state no hash the Resource List's length and
// hash, so that they are verified, where the list is at least as new as
// the change (an older list describes the resource before it). It reads
// the list only when some change needs it.
func (r *syncRun) fillIn(ctx context.Context, s resourcesync.Set, rs []resourcesync.Resource) error {
	need := false
	for _, x := range rs {
		need = need || (x.Change != resourcesync.ChangeDeleted && len(x.File.Hashes) == 0)
	}
	if !need || s.ResourceList == "" {
		return nil
	}
	doc, err := r.o.Fetcher.List(ctx, s.ResourceList)
	if err != nil {
		return err
	}
	byLoc := make(map[string]resourcesync.Entry, len(doc.Entries))
	for _, e := range doc.Entries {
		byLoc[e.Loc] = e
	}
	for i := range rs {
		x := &rs[i]
		e, ok := byLoc[x.Loc]
		if !ok || len(x.File.Hashes) > 0 || x.Change == resourcesync.ChangeDeleted || doc.At.Before(x.Lastmod) {
			continue
		}
		if x.File.Size < 0 || x.File.Size == e.Length {
			x.File.Hashes, x.File.Size = e.Hashes, e.Length
		}
	}
	return nil
}

func (r *syncRun) warnings(doc string, ws []string) {
	for _, w := range ws {
		r.note(SyncWarning, doc, errors.New(w))
	}
}

// apply brings every resource of rs to the source's state, o.Jobs at a
// time, and reports whether any failed.
func (r *syncRun) apply(ctx context.Context, rec *queue.SyncSet, rs []resourcesync.Resource) (failed bool) {
	r.recMu.Lock()
	r.recFailed, r.flushed = false, time.Now()
	r.recMu.Unlock()
	var mu sync.Mutex
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(r.o.Jobs)
	for i := range rs {
		x := &rs[i]
		r.mu.Lock()
		if x.Change != resourcesync.ChangeDeleted {
			r.listed[x.File.Name] = true
		}
		r.mu.Unlock()
		g.Go(func() error {
			if !r.one(gctx, rec, x) {
				mu.Lock()
				failed = true
				mu.Unlock()
			}
			return nil
		})
	}
	g.Wait()
	r.pruneFolders()
	r.flush(rec)
	r.recMu.Lock()
	defer r.recMu.Unlock()
	return failed || r.recFailed
}

// pruneFolders removes the folders the deletions emptied, and the folders
// above them that this empties, as the source has none. It waits until
// every file of the set is done: until then, a folder may be empty only
// for a moment, between a changed file's removal and its new .part.
func (r *syncRun) pruneFolders() {
	r.mu.Lock()
	dirs := r.emptied
	r.emptied = nil
	r.mu.Unlock()
	for _, d := range dirs {
		for ; d != "."; d = path.Dir(d) {
			if rootfile.Remove(r.root, d) != nil {
				break // not empty, or not ours to remove
			}
		}
	}
}

// forget drops name from the set's record: no version of it is on disk.
func (r *syncRun) forget(rec *queue.SyncSet, name string) error {
	return r.q.SyncedFiles(rec.ID, []queue.SyncedFile{{Name: name, Gone: true}})
}

// one brings one resource to the source's state and reports whether it
// did.
func (r *syncRun) one(ctx context.Context, rec *queue.SyncSet, x *resourcesync.Resource) bool {
	name := x.File.Name
	if x.Change == resourcesync.ChangeDeleted {
		if _, err := r.root.Stat(name); errors.Is(err, fs.ErrNotExist) {
			return r.forget(rec, name) == nil
		}
		if !r.o.Delete || r.o.Check {
			r.note(SyncGone, name, nil)
			r.mu.Lock()
			r.gone = append(r.gone, x)
			r.mu.Unlock()
			return true
		}
		if err := rootfile.Remove(r.root, name); err != nil {
			r.failed(name, fmt.Errorf("delete: %w", err))
			return false
		}
		r.mu.Lock()
		r.emptied = append(r.emptied, path.Dir(name))
		r.mu.Unlock()
		r.note(SyncDeleted, name, nil)
		return r.forget(rec, name) == nil
	}
	state, err := r.local(ctx, x)
	if err != nil {
		r.failed(name, err)
		return false
	}
	if state == SyncKept {
		r.count(SyncKept, 0)
		r.obs.Note(Note{Kind: NoteSync, Source: r.source, File: name, Sync: SyncKept, Size: x.File.Size})
		r.record(rec, x)
		return true
	}
	if r.o.Check {
		r.note(state, name, nil)
		return true
	}
	if err := r.o.Fetcher.Describe(ctx, x); err != nil {
		r.note(SyncWarning, name, err)
	}
	if state == SyncChanged {
		// The old version goes: a file at its final name is never
		// overwritten by the engine, and this one is not the source's.
		if err := rootfile.Remove(r.root, name); err != nil && !errors.Is(err, fs.ErrNotExist) {
			r.failed(name, fmt.Errorf("replace: %w", err))
			return false
		}
		// Until the new version lands, no version is on disk: the
		// record must not say the old one is synced.
		if err := r.forget(rec, name); err != nil {
			r.failed(name, fmt.Errorf("replace: %w", err))
			return false
		}
	}
	run := &FileRun{Job: r.o.Job, Source: r.source, Name: name, Size: x.File.Size, Mirrors: len(x.File.URLs)}
	w := watching{
		every: r.obs.Interval(),
		job:   func() (*queue.Queue, int64, bool) { return nil, 0, false },
		begin: func(*engine.Snapshot) { r.obs.Start(run) },
		tick:  func(s *engine.Snapshot) { r.obs.Progress(run, Progress{Snapshot: s}) },
	}
	snap, err := r.fetcher.fetch(ctx, r.o.Client, &engine.Request{Dir: r.dir, File: x.File, Locations: r.o.Locations, Net: r.o.Net}, w)
	switch {
	case err != nil && ctx.Err() != nil:
		err = ctx.Err() // interrupted: no failure of the file's (SyncEventOfResult)
	case err != nil:
		r.count(SyncFailed, 0)
	default:
		r.count(SyncFetched, snap.Bytes)
	}
	r.obs.Result(Result{Run: run, Source: r.source, File: name, Snapshot: &snap, Err: err})
	if err != nil {
		return false
	}
	r.record(rec, x)
	return true
}

// syncBatch and syncBatchAge bound the verified files a sync holds before
// it records them: one transaction (one fsync) per batch rather than one
// per file. A sync killed before a batch is recorded loses only the
// record: the next sync finds those files right on disk and keeps them.
const (
	syncBatch    = 512
	syncBatchAge = time.Second
)

// record notes that x is right on disk. A file recorded as it is already
// (a sync that finds nothing changed) costs no write.
func (r *syncRun) record(rec *queue.SyncSet, x *resourcesync.Resource) {
	f := queue.SyncedFile{Name: x.File.Name, URL: x.Loc, Size: x.File.Size, Hashes: x.File.Hashes}
	if old, ok := rec.Files[f.Name]; ok && old.URL == f.URL && old.Size == f.Size && slices.Equal(old.Hashes, f.Hashes) {
		return
	}
	r.recMu.Lock()
	defer r.recMu.Unlock()
	r.pending = append(r.pending, f)
	if len(r.pending) >= syncBatch || time.Since(r.flushed) >= syncBatchAge {
		r.flushLocked(rec)
	}
}

// flush records the files verified and not yet recorded.
func (r *syncRun) flush(rec *queue.SyncSet) {
	r.recMu.Lock()
	defer r.recMu.Unlock()
	r.flushLocked(rec)
}

// flushLocked is flush with recMu held. When the queue fails, every file
// of the batch is a failure: the set is not recorded as in sync.
func (r *syncRun) flushLocked(rec *queue.SyncSet) {
	batch := r.pending
	r.pending, r.flushed = nil, time.Now()
	if err := r.q.SyncedFiles(rec.ID, batch); err != nil {
		r.recFailed = true
		for _, f := range batch {
			r.failed(f.Name, err)
		}
	}
}

// local compares the file on disk with the resource: SyncKept when it has
// the listed length and hash, SyncMissing or SyncChanged otherwise. A
// resource without a hash is kept when its length matches, unless a Change
// List says it changed.
func (r *syncRun) local(ctx context.Context, x *resourcesync.Resource) (SyncKind, error) {
	fi, err := r.root.Stat(x.File.Name)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return SyncMissing, nil
	case err != nil:
		return "", err
	case !fi.Mode().IsRegular():
		return "", fmt.Errorf("%s is not a regular file; not touched", x.File.Name)
	}
	if x.File.Size >= 0 && fi.Size() != x.File.Size {
		return SyncChanged, nil
	}
	if len(x.File.Hashes) == 0 {
		if x.Change != "" {
			return SyncChanged, nil // the source says it changed; nothing here can prove it right
		}
		return SyncKept, nil
	}
	f := x.File
	f.Size = fi.Size()
	rep, err := piece.VerifyFileFull(ctx, r.root, f, 1)
	if err != nil {
		return "", fmt.Errorf("%s: %w", x.File.Name, err)
	}
	if !rep.OK() {
		return SyncChanged, nil
	}
	return SyncKept, nil
}

// extra reports the files in the folder that no set lists (--check).
// Braid's own NAME.part files of listed resources are not extra.
func (r *syncRun) extra() error {
	var names []string
	err := filepath.WalkDir(r.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(r.dir, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if r.listed[rel] || r.listed[strings.TrimSuffix(rel, ".part")] {
			return nil
		}
		names = append(names, rel)
		return nil
	})
	if err != nil {
		return fmt.Errorf("sync --check: %w", err)
	}
	slices.Sort(names)
	for _, n := range names {
		r.note(SyncExtra, n, nil)
	}
	return nil
}
