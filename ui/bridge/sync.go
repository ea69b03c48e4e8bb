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

// ResourceSync jobs in the window. A sync is a job of the queue of its
// own kind (queue.Job.Sync): the runner runs it in its turn, a pause
// stops it and Remove forgets it as any job; its files are recorded in
// its sync sets (queue.SyncSets), not as the job's files, and a sync
// under way (runner.LiveSync) is polled like a download.

var _ ui.Syncer = (*Backend)(nil)

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
	hc := b.sourceClient() // the window's network, as every source it reads
	if !sniffURL(ctx, hc, probe) {
		return nil, false, nil
	}
	f := &resourcesync.Fetcher{HTTP: hc}
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

// sniffURL reads the start of the document at u with hc and reports
// whether it is a ResourceSync document (resourcesync.Sniff).
func sniffURL(ctx context.Context, hc *http.Client, u string) bool {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return false
	}
	req.Header.Set("Range", "bytes=0-4095")
	resp, err := hc.Do(req)
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

// addSync adds the sync of source into dir, or queues again the sync
// job the queue has of them, and wakes the runner.
func (b *Backend) addSync(source, dir string) (ui.JobID, error) {
	added, err := runner.Add(b.ctx, b.q, source, runner.AddOptions{Dir: dir, Sync: true})
	switch {
	case err != nil:
		return 0, err
	case added.Found:
		return 0, &ui.InQueueError{ID: ui.JobID(added.ID)}
	}
	b.svc.Wake()
	b.changed()
	return ui.JobID(added.ID), nil
}

// SyncAgain brings a sync job's folder up to date with its source: the
// job is queued again, whether it synced, failed or was paused.
func (b *Backend) SyncAgain(id ui.JobID) error {
	j, err := b.q.Get(int64(id))
	if err != nil {
		return err
	}
	if !j.Sync {
		return fmt.Errorf(lang.L("job %d is not a sync"), id)
	}
	if j.State == queue.Running || j.State == queue.Queued {
		return nil
	}
	if err := b.q.SetState(int64(id), queue.Queued); err != nil {
		return err
	}
	b.svc.Wake()
	return nil
}

// syncViewLocked is sync job j as the window shows it, v its row as a
// job: Synced once a sync completed, live while one runs, and with what
// its last run this session did.
func (b *Backend) syncViewLocked(j queue.Job, v ui.Job) ui.Job {
	v.Name, v.Sync, v.Size = syncName(j.Dest, j.Source), true, -1
	run, ran := b.runner.LiveSync(j.ID)
	switch {
	case j.State == queue.Done:
		v.State = ui.Synced
		v.Outcome = fmt.Sprintf(lang.L("last synced %s"), j.FinishedAt.Local().Format("2006-01-02 15:04"))
	case j.State == queue.Paused && v.Err == "":
		v.Err = lang.L("stopped; Sync again finishes it")
	}
	if !ran {
		if j.SyncFiles > 0 {
			// Not run this session: its last complete sync says its size.
			v.Size = j.SyncBytes
			if j.State == queue.Done {
				v.Done = v.Size
			}
		}
		return v
	}
	snap := run.Snapshot()
	v.Size, v.Done = snap.Size, snap.Bytes
	for _, f := range snap.Files {
		v.Done += f.Bytes
		v.Speed += float64(f.Speed)
	}
	if v.Size >= 0 {
		v.Size = max(v.Size, v.Done)
	}
	switch j.State {
	case queue.Running:
		if v.Speed > 0 && v.Size > 0 {
			v.ETA = time.Duration(float64(v.Size-v.Done) / v.Speed * float64(time.Second))
		}
	case queue.Failed:
		if c := syncCounts(snap.Counts); c != "" {
			v.Err, v.ErrDetail = c, queue.Redact(j.Error)
		}
	case queue.Done:
		v.Outcome = syncCounts(snap.Counts)
		if v.Size >= 0 {
			v.Done = v.Size // kept files count as much as fetched ones
		}
	}
	return v
}

// isSync reports whether job id is a sync job, as the queue was last
// listed (Jobs).
func (b *Backend) isSync(id ui.JobID) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.known[int64(id)].Sync
}

// activeSyncsLocked are the sync jobs running now, with their live
// progress. The window hears (changed) when one of them ends, to read
// how it ended.
func (b *Backend) activeSyncsLocked() []ui.Job {
	var out []ui.Job
	for _, id := range b.syncJobs {
		j := b.known[id]
		run, ok := b.runner.LiveSync(id)
		running := false
		// As the queue was last listed: a sync paused since is not live,
		// though its run takes a moment to stop.
		if ok && (j.State == queue.Queued || j.State == queue.Running) {
			select {
			case <-run.Done():
			default:
				running = true
			}
		}
		switch {
		case running:
			b.syncing[id] = true
			j.State = queue.Running
			out = append(out, b.viewLocked(j))
		case b.syncing[id]:
			delete(b.syncing, id)
			b.changed()
		}
	}
	return out
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

// syncDetail is sync job j's files: those in progress, live, and the
// latest outcomes of its run this session; or those its sets record.
func (b *Backend) syncDetail(j queue.Job, view ui.Job) (ui.Detail, error) {
	d := ui.Detail{Job: view, Origin: view.Source}
	run, ok := b.runner.LiveSync(j.ID)
	if !ok {
		return d, b.syncedFiles(&d, j.ID)
	}
	snap := run.Snapshot()
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
			switch {
			case e.Kind == runner.SyncFetched:
				fd.Size = e.Bytes
			case e.Size >= 0: // kept: right on disk, nothing fetched
				fd.Size, fd.Done = e.Size, e.Size
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

// syncedFiles lists the files the queue records as synced by sync job
// id, for one that has not run this session.
func (b *Backend) syncedFiles(d *ui.Detail, id int64) error {
	sets, err := b.q.SyncSets(id)
	if err != nil {
		return err
	}
	for _, set := range sets {
		for _, name := range slices.Sorted(maps.Keys(set.Files)) {
			f := set.Files[name]
			fd := ui.FileDetail{Name: name, Size: f.Size, Done: max(f.Size, 0), ETA: -1, State: ui.FileVerified, Hashes: f.Hashes}
			if h, ok := piece.Strongest(f.Hashes); ok {
				fd.Verification = fmt.Sprintf(lang.L("%s matched"), h.Type)
			}
			if f.URL != "" {
				fd.Mirrors = []ui.MirrorDetail{{URL: queue.Redact(f.URL), Host: hostOf(f.URL)}}
			}
			d.Files = append(d.Files, fd)
		}
	}
	return nil
}
