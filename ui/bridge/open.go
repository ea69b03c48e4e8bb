package bridge

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"fyne.io/fyne/v2/lang"

	"braid/engine"
	"braid/engine/torrent"
	"braid/platform"
	"braid/queue"
	"braid/ui"
)

var _ ui.LiveOpener = (*Backend)(nil)

// openLive is what opening files while they arrive keeps: the loopback
// server torrents stream through, made on first use and closed with the
// backend.
type openLive struct {
	mu      sync.Mutex
	streams *torrent.Streams
	// as opens a file or URL with the application of a final name;
	// nil is platform.OpenAs.
	as func(target, name string) error
}

// CanOpenLive implements ui.LiveOpener: a torrent that runs (its reader
// fetches what the player reads first), or a download in order (its
// front is whole first).
func (b *Backend) CanOpenLive(id ui.JobID) bool {
	if b.isSync(id) {
		return false
	}
	if tj, ok := b.runner.LiveTorrent(int64(id)); ok {
		select {
		case <-tj.Done():
		default:
			return true
		}
	}
	on, err := b.q.InOrder(int64(id))
	return err == nil && on
}

// OpenLive implements ui.LiveOpener: job id's first selected file not
// done yet is opened with the application of its final name. A running
// torrent's file is served through the library's reader on a loopback
// address (torrent.Streams); a download in order's .part is opened as it
// is, once what is whole of it (up to the first missing piece) is synced
// to disk.
func (b *Backend) OpenLive(id ui.JobID) error {
	if b.isSync(id) {
		return errors.New(lang.L("A folder kept in sync cannot be opened as one file."))
	}
	if tj, ok := b.runner.LiveTorrent(int64(id)); ok {
		return b.openTorrentLive(tj)
	}
	j, err := b.q.Get(int64(id))
	if err != nil {
		return err
	}
	if j.Torrent {
		return errors.New(lang.L("A torrent's file is read from its peers while it runs: resume the download, then open it."))
	}
	if on, err := b.q.InOrder(j.ID); err != nil || !on {
		return errors.New(lang.L("Only a download in order can be opened while it arrives: choose Download in order first."))
	}
	var f queue.File
	found := false
	for _, qf := range j.Files {
		if qf.Selected && !qf.Verified {
			f, found = qf, true
			break
		}
	}
	if !found {
		return errors.New(lang.L("Every file of this download is done: open it when the download has finished."))
	}
	name, whole, err := b.wholePrefix(j, f)
	if err != nil {
		return err
	}
	if whole == 0 {
		return fmt.Errorf(lang.L("Nothing of %s has arrived yet: open it again in a moment."), filepath.Base(name))
	}
	part := filepath.FromSlash(name) + ".part"
	if err := syncPart(j.Dest, part); err != nil {
		return err
	}
	return b.openAs(filepath.Join(j.Dest, part), name)
}

// wholePrefix is the name file f of job j is saved under and how many of
// its bytes from the start are whole: those of the pieces before the
// first missing one, as its running download says, or as the queue
// recorded them when it does not run.
func (b *Backend) wholePrefix(j queue.Job, f queue.File) (string, int64, error) {
	name := f.Path()
	var s engine.Snapshot
	for _, dl := range b.runner.LiveAll(j.ID) {
		if dl.SnapshotInto(&s); s.Name != f.Name {
			continue
		}
		if s.SavedAs != "" {
			name = s.SavedAs
		}
		n := 0
		for n < len(s.Pieces) && s.Pieces[n] == engine.PieceDone {
			n++
		}
		return name, min(int64(n)*s.PieceLength, max(s.Size, 0)), nil
	}
	done, layout, err := b.q.Pieces(j.ID, f.Name)
	if errors.Is(err, queue.ErrNotFound) {
		return name, 0, nil // no piece recorded yet
	}
	if err != nil {
		return "", 0, err
	}
	n := 0
	for n < done.Len() && done.Has(n) {
		n++
	}
	return name, min(int64(n)*layout.Length, max(layout.Size, 0)), nil
}

// syncPart makes what was written to dir's file part durable: the
// engine writes every piece straight into the .part (no buffer of its
// own holds any), so a player already reads all that is whole; the sync
// puts it on the disk before another program relies on it.
func syncPart(dir, part string) error {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	// Windows flushes a file only through a handle that may write.
	f, err := root.OpenFile(part, os.O_RDWR, 0)
	if err != nil {
		if f, err = root.Open(part); err != nil {
			return fmt.Errorf(lang.L("%s is not there to open: %w"), part, err)
		}
	}
	defer f.Close()
	if err := f.Sync(); err != nil {
		return fmt.Errorf(lang.L("%s could not be synced to disk: %w"), part, err)
	}
	return nil
}

// openTorrentLive opens the first selected file of the running torrent tj
// that is not done (or its first selected file) through Streams.
func (b *Backend) openTorrentLive(tj *torrent.Job) error {
	var pick *torrent.File
	files := tj.Files()
	for i := range files {
		if files[i].Selected && (pick == nil || pick.Done && !files[i].Done) {
			pick = &files[i]
		}
	}
	if pick == nil {
		return errors.New(lang.L("The torrent's files are not known yet: open it again once its metadata has arrived."))
	}
	s, err := b.streams()
	if err != nil {
		return err
	}
	u, err := s.URL(tj, pick.Name)
	if err != nil {
		return err
	}
	return b.openAs(u, pick.Name)
}

// streams is the backend's loopback server for torrents, started on
// first use and closed when the backend closes.
func (b *Backend) streams() (*torrent.Streams, error) {
	b.opener.mu.Lock()
	defer b.opener.mu.Unlock()
	if b.opener.streams != nil {
		return b.opener.streams, nil
	}
	s, err := torrent.NewStreams()
	if err != nil {
		return nil, err
	}
	b.opener.streams = s
	b.wg.Add(1)
	go func() {
		defer b.wg.Done()
		<-b.ctx.Done()
		s.Close()
	}()
	return s, nil
}

func (b *Backend) openAs(target, name string) error {
	if b.opener.as != nil {
		return b.opener.as(target, name)
	}
	return platform.OpenAs(target, name)
}
