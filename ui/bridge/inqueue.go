package bridge

import (
	"context"
	"fmt"
	"os"
	"path"
	"strings"

	"fyne.io/fyne/v2/lang"

	"braid/engine/metalink"
	"braid/engine/torrent"
	"braid/runner"
	"braid/ui"
)

var (
	_ ui.QueueFinder = (*Backend)(nil)
	_ ui.UnreadAdder = (*Backend)(nil)
	_ ui.DataRemover = (*Backend)(nil)
)

// InQueue returns the job that has source already: for a magnet link or
// a local .torrent file, the job of the same torrent (by its info hash,
// however that job was added); for any other source, the newest job of
// the same link in its canonical spelling. It reads no network: a
// .torrent's URL is compared as a link (Add still refuses a second job
// of its torrent).
func (b *Backend) InQueue(_ context.Context, source string) (ui.JobID, bool) {
	if spec, ok := localTorrent(source); ok {
		id, found, err := b.q.TorrentJob(spec.InfoHash)
		if err == nil && found {
			return ui.JobID(id), true
		}
	}
	id, found, err := b.q.JobFor(source, "")
	if err != nil || !found {
		return 0, false
	}
	return ui.JobID(id), true
}

// localTorrent reads a magnet link or a local .torrent file, without the
// network; false for any other source.
func localTorrent(source string) (*torrent.Spec, bool) {
	if strings.HasPrefix(strings.ToLower(source), "magnet:") {
		spec, err := torrent.ParseMagnet(source)
		return spec, err == nil
	}
	if strings.Contains(source, "://") || !strings.EqualFold(path.Ext(source), ".torrent") {
		return nil, false
	}
	if fi, err := os.Stat(source); err != nil || fi.Size() > torrent.MaxMetainfoSize {
		return nil, false
	}
	spec, err := torrent.Resolve(context.Background(), source, nil)
	return spec, err == nil
}

// sameTorrent is Add's refusal of a torrent whose job is in the queue
// already: one client runs a torrent once, and a second job of it could
// only fail ("this torrent is already running").
func (b *Backend) sameTorrent(doc *metalink.Document) error {
	b.tor.mu.Lock()
	spec := b.tor.specs[doc]
	b.tor.mu.Unlock()
	if spec == nil {
		return nil
	}
	if id, found, err := b.q.TorrentJob(spec.InfoHash); err == nil && found {
		return &ui.InQueueError{ID: ui.JobID(id)}
	}
	return nil
}

// AddUnread adds a plain link whose reading failed with cause as a job of
// one file named after the link, failed with cause as its reason: the
// window lists it, its row says why, Resume tries it again, and a server
// that asks for a login has it ask for one (LoginWanted). A link to a
// metalink or a torrent is not added (false): its file would be the
// document itself.
func (b *Backend) AddUnread(ctx context.Context, source, dir string, cause error) (ui.JobID, bool, error) {
	doc, ok := unreached(source) // source.go
	if !ok {
		return 0, false, nil
	}
	doc.Warnings = nil
	id, err := b.Add(ctx, ui.AddRequest{Source: source, Doc: doc, Dir: dir, Paused: true})
	if err != nil {
		return 0, false, err
	}
	if err := b.q.Fail(int64(id), cause); err != nil {
		return id, true, err
	}
	b.changed()
	return id, true, nil
}

// RemoveWithData takes job id out of the queue as Remove does, and
// deletes its downloaded data as `braid queue remove --files` does
// (runner.RemoveWithFiles): each file's NAME.part, and the finished
// files the job itself wrote, never a file that was there before it. The
// job is stopped first, so no run writes on while its files go and none
// holds them open (Windows refuses to delete an open file). deleted are
// the paths gone from the disk.
func (b *Backend) RemoveWithData(id ui.JobID) (deleted []string, err error) {
	if id < 0 {
		return nil, b.removeSync(id) // a sync's folder is the user's copy: it stays
	}
	_ = b.q.Pause(int64(id), "") // a done job refuses: nothing runs it
	b.stopSeeding(int64(id))
	b.waitLetGo(int64(id)) // relink.go
	deleted, err = runner.RemoveWithFiles(b.q, int64(id))
	if err != nil {
		return deleted, fmt.Errorf(lang.L("delete the data of job %d: %w"), id, err)
	}
	b.forget(id)
	return deleted, nil
}
