package bridge

import (
	"errors"
	"fmt"

	"fyne.io/fyne/v2/lang"

	"braid/engine/torrent"
	"braid/queue"
	"braid/ui"
)

// Peers returns the peers of the torrent job id runs or seeds now, for
// the Peers tab; false when it runs none. Built at the call: the window
// asks only while the tab shows.
func (b *Backend) Peers(id ui.JobID) ([]ui.PeerDetail, bool) {
	ps, ok := b.runner.TorrentPeers(int64(id))
	if !ok {
		return nil, false
	}
	out := make([]ui.PeerDetail, len(ps))
	for i, p := range ps {
		out[i] = ui.PeerDetail{
			Addr: p.Addr, Client: p.Client, Source: peerSource(p.Source),
			Flags:        p.Flags,
			AmInterested: p.AmInterested, AmChoking: p.AmChoking,
			PeerInterested: p.PeerInterested, PeerChoking: p.PeerChoking,
			Encrypted: p.Encrypted, UTP: p.UTP,
			Down: p.DownRate, Up: p.UpRate,
			Progress: p.Progress(), Seeder: p.Seeder,
		}
	}
	return out, true
}

func peerSource(s string) ui.PeerSource {
	switch s {
	case torrent.SourceTracker:
		return ui.PeerFromTracker
	case torrent.SourceIncoming:
		return ui.PeerFromIncoming
	case torrent.SourceDHT:
		return ui.PeerFromDHT
	case torrent.SourcePEX:
		return ui.PeerFromPEX
	case torrent.SourceDirect:
		return ui.PeerFromLink
	}
	return ui.PeerFromUnknown
}

// Trackers returns the trackers of the torrent job id runs or seeds now,
// for the Trackers tab; false when it runs none.
func (b *Backend) Trackers(id ui.JobID) ([]ui.TrackerDetail, bool) {
	ts, ok := b.runner.TorrentTrackers(int64(id))
	if !ok {
		return nil, false
	}
	out := make([]ui.TrackerDetail, len(ts))
	for i, t := range ts {
		out[i] = ui.TrackerDetail{URL: queue.Redact(t.URL), Tier: t.Tier, Peers: t.Peers, Next: t.NextAnnounce}
		switch t.Status {
		case torrent.TrackerWorking:
			out[i].State = ui.TrackerWorking
		case torrent.TrackerFailed:
			out[i].State = ui.TrackerFailed
			out[i].Err, out[i].ErrDetail = ui.Explain(queue.Redact(t.Err))
		case torrent.TrackerDisabled:
			out[i].State = ui.TrackerDisabled
		case torrent.TrackerNotContacted:
			out[i].State = ui.TrackerNotContacted
		default:
			out[i].State = ui.TrackerUnknown
		}
	}
	return out, true
}

// SetFileWanted fetches or skips a file of a torrent job: at once when it
// downloads now, and for its next run in any case.
func (b *Backend) SetFileWanted(id ui.JobID, name string, want bool) error {
	err := b.runner.SetTorrentFile(int64(id), name, want)
	switch {
	case errors.Is(err, queue.ErrLastFile):
		return errors.New(lang.L("At least one file of the torrent must stay selected."))
	case errors.Is(err, torrent.ErrFinished):
		return errors.New(lang.L("The torrent has finished: its files can no longer be changed while it seeds."))
	case err != nil:
		return fmt.Errorf(lang.L("change the files of job %d: %w"), id, err)
	}
	b.changed()
	return nil
}

// SetFilePriority fetches a torrent job's file before its others (high)
// or like them: at once when it downloads now, and for its next runs in
// any case.
func (b *Backend) SetFilePriority(id ui.JobID, name string, high bool) error {
	err := b.runner.SetTorrentFileHigh(int64(id), name, high)
	switch {
	case errors.Is(err, torrent.ErrFinished):
		return errors.New(lang.L("The torrent has finished: its files can no longer be changed while it seeds."))
	case err != nil:
		return fmt.Errorf(lang.L("change the files of job %d: %w"), id, err)
	}
	b.changed()
	return nil
}

// swarmDetail marks a torrent job's detail as one (the Peers and
// Trackers tabs) and, while its torrent downloads, lists the files it
// skips after those it fetches and lets each be fetched or skipped.
func (b *Backend) swarmDetail(d *ui.Detail, j queue.Job) {
	for _, f := range j.Files {
		if torrent.HasTorrent(docFile(j.Doc, f.Name)) {
			d.Torrent = true
			break
		}
	}
	if !d.Torrent {
		return
	}
	// The reading Detail has just taken (torrentDetail): no second
	// snapshot.
	// Read under the lock that the reading's writer (readTorrentLocked)
	// holds.
	b.tor.mu.Lock()
	var reading bool // the last reading downloads files
	if r := b.tor.last[int64(d.ID)]; r != nil {
		reading = r.snap.Phase == torrent.PhaseDownloading && len(r.snap.Files) > 0
	}
	b.tor.mu.Unlock()
	tj, live := b.runner.LiveTorrent(int64(d.ID))
	if live {
		select {
		case <-tj.Done():
			live = false // its last snapshot, once more
		default:
		}
	}
	downloading := live && reading
	// Not running now: its files are chosen for its next run. A done
	// one (not seeding) can have a skipped file fetched on Resume.
	idle := !live && j.State != queue.Running
	done := j.State == queue.Done
	if !downloading && !idle {
		// Only the files fetched, as for any job: what a seeding or
		// starting torrent skipped cannot change now.
		return
	}
	for _, f := range j.Files {
		if !f.Selected {
			d.Files = append(d.Files, ui.FileDetail{Name: f.Name, Size: f.Size, ETA: -1, Skipped: true,
				PieceCount: f.Layout.Count(), Verification: lang.L("skipped: not fetched")})
		}
	}
	high := map[string]bool{}
	for _, f := range j.Files {
		high[f.Name] = f.High
	}
	for i := range d.Files {
		d.Files[i].High = high[d.Files[i].Name]
		// A done torrent's fetched files are on disk: only its
		// skipped ones can be added.
		d.Files[i].Choosable = !done || d.Files[i].Skipped
	}
}
