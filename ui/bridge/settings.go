package bridge

import (
	"braid/platform"
	"braid/queue"
	"braid/ui"
)

// Settings returns the settings, with the platform's defaults where the
// user has chosen nothing.
func (b *Backend) Settings() (ui.Settings, error) {
	s, err := b.q.Settings()
	if err != nil {
		return ui.Settings{}, err
	}
	def := platform.DefaultPrefs()
	out := ui.Settings{
		Dir:               s.DownloadDir,
		Languages:         s.Languages,
		OS:                s.OS,
		Countries:         s.Countries,
		MaxConns:          s.MaxConns,
		MaxConnsPerMirror: s.MaxConnsPerMirror,
		SpeedLimit:        s.SpeedLimit,
		AltSpeedLimit:     s.Schedule.AltLimit,
		MaxJobs:           s.Jobs,
		StartOnLaunch:     s.StartOnLaunch,
		RequireSignature:  s.RequireSignature,
		Torrent:           uiTorrentSettings(s.Torrent),
	}
	if out.Languages == nil {
		out.Languages = def.Languages
	}
	if out.OS == nil {
		out.OS = def.OS
	}
	if out.Countries == nil {
		out.Countries = def.Locations
	}
	return out, nil
}

// SetSettings stores the settings, in one transaction. A running Runner
// follows them within a second: the limits reach the running downloads,
// and the number of downloads at once (queue.Settings.Jobs) how many jobs
// it runs. Of the BitTorrent settings, the upload limit applies at once;
// the seed ratio to torrents finished from now on; the port from the next
// start.
func (b *Backend) SetSettings(s ui.Settings) error {
	err := b.q.UpdateSettings(func(qs *queue.Settings) {
		qs.DownloadDir = s.Dir
		qs.Languages, qs.OS, qs.Countries = s.Languages, s.OS, s.Countries
		qs.MaxConns, qs.MaxConnsPerMirror = s.MaxConns, s.MaxConnsPerMirror
		qs.SpeedLimit, qs.StartOnLaunch = s.SpeedLimit, s.StartOnLaunch
		// The running Runner follows Jobs within a poll (Runner.Run).
		qs.Jobs = max(0, s.MaxJobs)
		qs.RequireSignature = s.RequireSignature
		qs.Schedule.AltLimit = s.AltSpeedLimit
		// What the dialog offers of the BitTorrent settings; the others
		// are kept.
		qs.Torrent.SeedRatio, qs.Torrent.Port, qs.Torrent.UploadLimit = s.Torrent.SeedRatio, s.Torrent.Port, s.Torrent.UploadLimit
	})
	if err != nil {
		return err
	}
	if c, err := b.runner.TorrentClient(); err == nil {
		// The download limit is the engine's, which the runner follows.
		c.SetUploadLimit(s.Torrent.UploadLimit)
	}
	// The limit in force may have changed: it reaches the downloads and
	// torrents under way at once, without stopping them.
	b.svc.LimitsChanged()
	return nil
}
