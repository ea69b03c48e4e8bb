package bridge

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"fyne.io/fyne/v2/lang"

	"braid/engine"
	"braid/engine/explain"
	"braid/engine/metalink"
	"braid/engine/piece"
	"braid/engine/resourcesync"
	sourcekind "braid/engine/source"
	"braid/queue"
	"braid/runner"
	"braid/ui"
)

// ResourceSync jobs in the window. A sync is not a row of the queue's
// jobs table: the queue records it as sync sets (queue.SyncSets), one per
// Capability List synced into a folder. The window shows each set as a
// job whose ID is the set's ID negated, so the two kinds never collide;
// a sync under way (queue.SyncJob) is polled like a download.

var _ ui.Syncer = (*Backend)(nil)

// syncRun is a sync under way or ended this session.
type syncRun struct {
	source, dest string
	sets         []int64 // the sync sets it keeps, by record ID
	size         int64   // bytes of the files the source lists; -1: not known
	job          *runner.SyncJob
	done         bool
	res          *runner.SyncResult
	err          error
}

// maxSyncDocs bounds the documents remembered as ResourceSync between
// Open and Add.
const maxSyncDocs = 16

// SyncDocument reports whether doc was read from a ResourceSync source:
// the picker offers it as a sync, and Add starts one.
func (b *Backend) SyncDocument(doc *metalink.Document) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	_, ok := b.syncDocs[doc]
	return ok
}

// openSync reads source as ResourceSync when it is one: a base URL whose
// host publishes /.well-known/resourcesync, or a URL whose document is a
// ResourceSync sitemap. ok is false, with no error, for anything else.
func (b *Backend) openSync(ctx context.Context, source string) (doc *metalink.Document, ok bool, err error) {
	s := sourcekind.Of(source)
	if s.Local() && s.Ext() == ".xml" {
		if f, err := os.Open(s.Path()); err == nil {
			head := make([]byte, 4096)
			n, _ := io.ReadFull(f, head) // a short file is read whole
			f.Close()
			if resourcesync.Sniff(head[:n]) {
				return nil, true, fmt.Errorf(lang.L("%s is a ResourceSync list: a sync reads it where it is published, so add its URL instead"), source)
			}
		}
		return nil, false, nil
	}
	if s.Kind() != sourcekind.Link || (s.Scheme() != "http" && s.Scheme() != "https") {
		return nil, false, nil
	}
	u, _ := url.Parse(source) // Of parsed it
	probe := source
	if u.Path == "" || strings.HasSuffix(u.Path, "/") {
		probe = (&url.URL{Scheme: u.Scheme, Host: u.Host, Path: resourcesync.WellKnown}).String()
	} else if s.Ext() != ".xml" && s.Ext() != "" {
		return nil, false, nil
	}
	if !sniffURL(ctx, probe) {
		return nil, false, nil
	}
	f := &resourcesync.Fetcher{}
	doc, err = f.Resolve(ctx, source)
	if err != nil {
		return nil, true, err
	}
	b.mu.Lock()
	b.syncDocs[doc] = source
	b.syncDocOrder = append(b.syncDocOrder, doc)
	if len(b.syncDocOrder) > maxSyncDocs {
		delete(b.syncDocs, b.syncDocOrder[0])
		b.syncDocOrder = b.syncDocOrder[1:]
	}
	b.mu.Unlock()
	return doc, true, nil
}

// sniffURL reads the start of the document at u and reports whether it
// is a ResourceSync document (resourcesync.Sniff).
func sniffURL(ctx context.Context, u string) bool {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return false
	}
	req.Header.Set("Range", "bytes=0-4095")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusPartialContent {
		return false
	}
	buf := make([]byte, 4096)
	n, _ := io.ReadFull(resp.Body, buf) // a short document is read whole
	return resourcesync.Sniff(buf[:n])
}

// addSync starts syncing the source doc was read from into dir.
func (b *Backend) addSync(source, dir string, doc *metalink.Document) (ui.JobID, error) {
	var size int64
	for _, f := range doc.Files {
		if f.Size < 0 {
			size = -1
			break
		}
		size += f.Size
	}
	return b.startSync(source, dir, size)
}

// startSync records the sets of source as synced into dir and runs the
// sync in the background; the job's ID is the first set's.
func (b *Backend) startSync(source, dir string, size int64) (ui.JobID, error) {
	sets, err := (&resourcesync.Fetcher{}).Discover(b.ctx, source)
	if err != nil {
		return 0, err
	}
	run := &syncRun{source: source, dest: dir, size: size}
	for _, s := range sets {
		key := s.CapabilityList
		if key == "" {
			key = s.ResourceList + s.ChangeList
		}
		rec, err := b.q.SyncSet(key, dir)
		if err != nil {
			return 0, err
		}
		run.sets = append(run.sets, rec.ID)
	}
	if len(run.sets) == 0 {
		return 0, fmt.Errorf(lang.L("sync %s: the source offers no list of resources"), queue.Redact(source))
	}
	b.mu.Lock()
	for _, id := range run.sets {
		if r := b.syncs[id]; r != nil && !r.done {
			b.mu.Unlock()
			return ui.JobID(-id), fmt.Errorf(lang.L("sync %s: already running"), queue.Redact(source))
		}
	}
	c := b.svc.Client()
	locations := []string(nil)
	if s, err := b.q.Settings(); err == nil {
		locations = s.Countries
	}
	run.job = runner.StartSync(b.ctx, b.q, source, dir, runner.SyncOptions{Client: c, Locations: locations})
	for _, id := range run.sets {
		b.syncs[id] = run
	}
	b.mu.Unlock()
	b.changed()
	b.wg.Add(1)
	go func() {
		defer b.wg.Done()
		res, err := run.job.Wait()
		b.mu.Lock()
		run.done, run.res, run.err = true, res, err
		b.mu.Unlock()
		b.changed()
	}()
	return ui.JobID(-run.sets[0]), nil
}

// SyncAgain brings a sync job's folder up to date with its source.
func (b *Backend) SyncAgain(id ui.JobID) error {
	set, err := b.syncSet(id)
	if err != nil {
		return err
	}
	_, err = b.startSync(set.Source, set.Dest, -1)
	return err
}

// syncSet is the record of sync job id.
func (b *Backend) syncSet(id ui.JobID) (queue.SyncSet, error) {
	sets, err := b.q.SyncSets()
	if err != nil {
		return queue.SyncSet{}, err
	}
	for _, s := range sets {
		if s.ID == -int64(id) {
			return s, nil
		}
	}
	return queue.SyncSet{}, fmt.Errorf(lang.L("sync job %d: not in the queue"), id)
}

// stopSync cancels the sync job id runs, if any, and waits for it.
func (b *Backend) stopSync(id ui.JobID) {
	b.mu.Lock()
	run := b.syncs[-int64(id)]
	b.mu.Unlock()
	if run == nil {
		return
	}
	// What it verified stays recorded. The run ends here, not when the
	// goroutine watching it gets round to saying so.
	res, err := run.job.Cancel()
	b.mu.Lock()
	run.done, run.res, run.err = true, res, err
	b.mu.Unlock()
	b.changed()
}

// removeSync stops a sync job and forgets its record; the folder stays.
func (b *Backend) removeSync(id ui.JobID) error {
	b.stopSync(id)
	if err := b.q.RemoveSyncSet(-int64(id)); err != nil {
		return err
	}
	b.mu.Lock()
	delete(b.syncs, -int64(id))
	b.mu.Unlock()
	return nil
}

// errSyncJob refuses what a sync job does not do.
func errSyncJob(id ui.JobID) error {
	return fmt.Errorf(lang.L("job %d is a sync: it has no place in the queue order and is checked by Sync again"), id)
}

// syncJobsLocked are the window's rows of the sync sets, after the queue.
func (b *Backend) syncJobsLocked(sets []queue.SyncSet) []ui.Job {
	out := make([]ui.Job, 0, len(sets))
	for _, s := range sets {
		out = append(out, b.syncViewLocked(s))
	}
	return out
}

// syncViewLocked is a sync set as the window shows it: live while a sync
// of it runs, Synced once one completed, and why it failed otherwise.
func (b *Backend) syncViewLocked(s queue.SyncSet) ui.Job {
	v := ui.Job{
		ID:     ui.JobID(-s.ID),
		Name:   syncName(s.Dest, s.Source),
		Source: queue.Redact(s.Source),
		Dir:    s.Dest,
		Size:   -1,
		ETA:    -1,
		Sync:   true,
		State:  ui.Paused,
	}
	if !s.SyncedAt.IsZero() {
		v.State = ui.Synced
		v.Outcome = fmt.Sprintf(lang.L("last synced %s"), s.SyncedAt.Local().Format("2006-01-02 15:04"))
	} else {
		v.Err = lang.L("not synced yet")
	}
	run := b.syncs[s.ID]
	if run == nil {
		return v
	}
	snap := run.job.Snapshot()
	v.Size = run.size
	v.Done = snap.Bytes
	for _, f := range snap.Files {
		v.Done += f.Bytes
		v.Speed += float64(f.Speed)
	}
	if v.Size >= 0 {
		v.Size = max(v.Size, v.Done)
	}
	counts := syncCounts(snap.Counts)
	switch {
	case !run.done:
		v.State, v.Err = ui.Running, ""
		if v.Speed > 0 && v.Size > 0 {
			v.ETA = time.Duration(float64(v.Size-v.Done) / v.Speed * float64(time.Second))
		}
	case errors.Is(run.err, context.Canceled):
		v.State, v.Err = ui.Paused, lang.L("stopped; Sync again finishes it")
	case run.err != nil:
		v.State = ui.Failed
		v.Err, v.ErrDetail = ui.Sentence(explain.Of(run.err)), queue.Redact(run.err.Error())
	case !run.res.OK():
		v.State, v.Err = ui.Failed, counts
	default:
		v.State, v.Err, v.Outcome = ui.Synced, "", counts
		if v.Size >= 0 {
			v.Done = v.Size // kept files count as much as fetched ones
		}
	}
	return v
}

// syncName names a sync job: its folder, and the source's host.
func syncName(dest, source string) string {
	host := source
	if u, err := url.Parse(source); err == nil && u.Host != "" {
		host = u.Host
	}
	return fmt.Sprintf(lang.L("%s (sync of %s)"), filepath.Base(dest), host)
}

// syncCounts says what a sync did: "3 fetched, 12 kept, 1 failed".
func syncCounts(c map[runner.SyncKind]int) string {
	var parts []string
	for _, k := range []struct {
		kind runner.SyncKind
		text string
	}{
		{runner.SyncFetched, lang.L("%d fetched")}, {runner.SyncKept, lang.L("%d kept")},
		{runner.SyncFailed, lang.L("%d failed")}, {runner.SyncSkipped, lang.L("%d skipped")},
		{runner.SyncGone, lang.L("%d deleted at the source, kept here")},
	} {
		if n := c[k.kind]; n > 0 {
			parts = append(parts, fmt.Sprintf(k.text, n))
		}
	}
	return strings.Join(parts, ", ")
}

// activeSyncsLocked are the sync jobs running now.
func (b *Backend) activeSyncsLocked() []ui.Job {
	var out []ui.Job
	seen := map[*syncRun]bool{}
	for id, run := range b.syncs {
		if run.done || seen[run] {
			continue
		}
		seen[run] = true
		out = append(out, b.syncViewLocked(queue.SyncSet{ID: id, Source: run.source, Dest: run.dest}))
	}
	return out
}

// syncDetail is a sync job's files: those in progress, live, and the
// latest outcomes.
func (b *Backend) syncDetail(id ui.JobID) (ui.Detail, error) {
	set, err := b.syncSet(id)
	if err != nil {
		return ui.Detail{}, err
	}
	b.mu.Lock()
	view := b.syncViewLocked(set)
	run := b.syncs[set.ID]
	b.mu.Unlock()
	d := ui.Detail{Job: view, Origin: view.Source}
	if run == nil {
		return d, b.syncedFiles(&d, set)
	}
	snap := run.job.Snapshot()
	for i := range snap.Files {
		fd := ui.FileDetail{Name: snap.Files[i].Name, ETA: -1}
		applySnapshot(&fd, &snap.Files[i], false)
		d.Files = append(d.Files, fd)
	}
	for i := len(snap.Events) - 1; i >= 0; i-- {
		e := snap.Events[i]
		fd := ui.FileDetail{Name: e.Name, Size: -1, Done: e.Bytes, ETA: -1}
		switch e.Kind {
		case runner.SyncFetched, runner.SyncKept:
			fd.State = ui.FileVerified
			if e.Kind == runner.SyncFetched {
				fd.Size = e.Bytes
			}
			fd.Verification = string(e.Kind)
			if e.Verified != "" {
				fd.Verification += " · " + fmt.Sprintf(lang.L("%s matched"), e.Verified)
			}
		case runner.SyncFailed, runner.SyncSkipped, runner.SyncWarning:
			fd.State = ui.FileFailed
			if e.Err != nil {
				fd.Err, fd.ErrDetail = ui.Sentence(explain.Of(e.Err)), queue.Redact(e.Err.Error())
			}
			if errors.Is(e.Err, engine.ErrHashMismatch) {
				fd.State = ui.FileMismatch
			}
		default:
			fd.Verification = string(e.Kind)
		}
		d.Files = append(d.Files, fd)
	}
	return d, nil
}

// syncedFiles lists the files the queue records as synced in set, for a
// sync job that has not run this session.
func (b *Backend) syncedFiles(d *ui.Detail, set queue.SyncSet) error {
	full, err := b.q.SyncSet(set.Source, set.Dest)
	if err != nil {
		return err
	}
	for _, name := range slices.Sorted(maps.Keys(full.Files)) {
		f := full.Files[name]
		fd := ui.FileDetail{Name: name, Size: f.Size, Done: max(f.Size, 0), ETA: -1, State: ui.FileVerified, Hashes: f.Hashes}
		if h, ok := piece.Strongest(f.Hashes); ok {
			fd.Verification = fmt.Sprintf(lang.L("%s matched"), h.Type)
		}
		if f.URL != "" {
			fd.Mirrors = []ui.MirrorDetail{{URL: queue.Redact(f.URL), Host: hostOf(f.URL)}}
		}
		d.Files = append(d.Files, fd)
	}
	return nil
}
