package bridge

import (
	"context"
	"fmt"
	"os"

	"fyne.io/fyne/v2/lang"

	sourcekind "braid/engine/source"
	"braid/engine/torrent"
	"braid/queue"
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
	s := sourcekind.Of(source)
	switch {
	case s.Kind() == sourcekind.Magnet:
		spec, err := torrent.ParseMagnet(source)
		return spec, err == nil
	case s.Kind() != sourcekind.Torrent || !s.Local():
		return nil, false
	}
	if fi, err := os.Stat(s.Path()); err != nil || fi.Size() > torrent.MaxMetainfoSize {
		return nil, false
	}
	spec, err := torrent.Resolve(context.Background(), s.Path(), nil)
	return spec, err == nil
}

// AddUnread adds a plain link whose reading failed with cause as a job of
// one file named after the link, failed with cause as its reason: the
// window lists it, its row says why, Resume tries it again, and a server
// that asks for a login has it ask for one (LoginWanted). A link to a
// metalink or a torrent is not added (false): its file would be the
// document itself.
func (b *Backend) AddUnread(ctx context.Context, source, dir string, cause error) (ui.JobID, bool, error) {
	doc, ok := runner.UnreachedDoc(source)
	if !ok {
		return 0, false, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0, false, fmt.Errorf(lang.L("add %s: destination: %w"), queue.Redact(source), err)
	}
	id, err := b.add(ctx, ui.AddRequest{Source: source, Doc: doc, Dir: dir, Paused: true}, cause)
	if err != nil {
		return 0, false, err
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
	// A sync job has no files of its own: its folder is the user's copy,
	// and stays.
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
