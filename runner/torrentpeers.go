package runner

import (
	"errors"
	"fmt"
	"slices"

	"braid/engine/torrent"
	"braid/queue"
)

// TorrentPeers returns the peers of the torrent job id runs or seeds now,
// built at the call (a torrent nobody looks at costs nothing); false
// when the runner holds no torrent for that job. Safe for concurrent use.
func (r *Runner) TorrentPeers(id int64) ([]torrent.Peer, bool) {
	tj, ok := r.liveOnly(id)
	if !ok {
		return nil, false
	}
	return tj.Peers(), true
}

// TorrentTrackers returns the trackers of the torrent job id runs or
// seeds now, with what the library knows of each; false when the runner
// holds no torrent for that job. Safe for concurrent use.
func (r *Runner) TorrentTrackers(id int64) ([]torrent.Tracker, bool) {
	tj, ok := r.liveOnly(id)
	if !ok {
		return nil, false
	}
	return tj.Trackers(), true
}

// liveOnly is LiveTorrent for torrents still running or seeding, not the
// last snapshot of one that ended.
func (r *Runner) liveOnly(id int64) (*torrent.Job, bool) {
	tj, ok := r.LiveTorrent(id)
	if !ok {
		return nil, false
	}
	select {
	case <-tj.Done():
		return nil, false
	default:
	}
	return tj, true
}

// ErrTorrentFinished is returned by SetTorrentFile for a torrent that has
// every file it was asked for: resume it with the file selected instead.
var ErrTorrentFinished = torrent.ErrFinished

// SetTorrentFile fetches (want) or skips file name of torrent job id. A
// running torrent takes it at once, without a restart (its skipped
// file's pieces are no longer asked for, and it completes without it);
// the queue keeps the choice for the job's next run. A job not running
// now changes in the queue only. Safe for concurrent use.
//
// A done torrent not seeding now that gets a skipped file selected is
// paused: Resume fetches that file (its other files stay as they are).
func (r *Runner) SetTorrentFile(id int64, name string, want bool) error {
	// The queue first: a torrent that completes a moment later lands its
	// files against the selection as changed.
	if err := r.Queue.SetFileSelected(id, name, want); err != nil {
		return err
	}
	tj, ok := r.liveOnly(id)
	if !ok {
		return r.fetchOnResume(id, want)
	}
	p := torrent.Skip
	if want {
		p = torrent.Normal
		if j, err := r.Queue.Get(id); err == nil && slices.ContainsFunc(j.Files, func(f queue.File) bool { return f.Name == name && f.High }) {
			p = torrent.High
		}
	}
	err := tj.SetPriority(name, p)
	if err == nil {
		return nil
	}
	// The running torrent said no: the queue goes back to what it runs.
	if undo := r.Queue.SetFileSelected(id, name, !want); undo != nil {
		err = errors.Join(err, undo)
	}
	if errors.Is(err, torrent.ErrNoFileLeft) {
		return fmt.Errorf("job %d: %s: %w", id, name, queue.ErrLastFile)
	}
	return fmt.Errorf("job %d: %w", id, err)
}

// fetched is the job's files that the torrent fetched, as SetTorrentFile
// may have changed them since the run began; selected (the job's
// selection then) when the torrent's names are not the job's (a magnet
// queued before its file list was known, its one file named after the
// torrent).
func fetched(j queue.Job, selected, wanted []string) []string {
	var out []string
	for _, f := range j.Files {
		if slices.Contains(wanted, f.Name) {
			out = append(out, f.Name)
		}
	}
	if len(out) == 0 {
		return selected
	}
	return out
}

// fetchOnResume pauses done job id, not running now, when a file was
// selected (want): it has a file to fetch, which Resume does.
func (r *Runner) fetchOnResume(id int64, want bool) error {
	if !want {
		return nil
	}
	j, err := r.Queue.Get(id)
	if err != nil || j.State != queue.Done {
		return err
	}
	return r.Queue.SetState(id, queue.Paused)
}

// SetTorrentFileHigh fetches file name of torrent job id before its other
// files (high) or like them. A running torrent takes it at once; the
// queue keeps it for the job's next runs. Safe for concurrent use.
func (r *Runner) SetTorrentFileHigh(id int64, name string, high bool) error {
	if err := r.Queue.SetFile(id, name, queue.High(high)); err != nil {
		return err
	}
	tj, ok := r.liveOnly(id)
	if !ok {
		return nil
	}
	j, err := r.Queue.Get(id)
	if err != nil {
		return err
	}
	for _, f := range j.Files {
		if f.Name == name && !f.Selected {
			return nil // skipped: it keeps the priority for when it is fetched
		}
	}
	p := torrent.Normal
	if high {
		p = torrent.High
	}
	err = tj.SetPriority(name, p)
	if err == nil {
		return nil
	}
	if undo := r.Queue.SetFile(id, name, queue.High(!high)); undo != nil {
		err = errors.Join(err, undo)
	}
	return fmt.Errorf("job %d: %w", id, err)
}
