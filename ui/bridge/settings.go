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
	sched, err := b.q.Schedule()
	if err != nil {
		return ui.Settings{}, err
	}
	require, err := b.q.RequireSignature()
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
		AltSpeedLimit:     sched.AltLimit,
		MaxJobs:           s.Jobs,
		StartOnLaunch:     s.StartOnLaunch,
		RequireSignature:  require,
	}
	if out.Torrent, err = b.uiTorrentSettings(); err != nil {
		return ui.Settings{}, err
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

// SetSettings stores the settings. A running Runner follows them within
// a second: the limits reach the running downloads, and the number of
// downloads at once (queue.Settings.Jobs) how many jobs it runs.
func (b *Backend) SetSettings(s ui.Settings) error {
	err := b.q.UpdateSettings(func(qs *queue.Settings) {
		qs.DownloadDir = s.Dir
		qs.Languages, qs.OS, qs.Countries = s.Languages, s.OS, s.Countries
		qs.MaxConns, qs.MaxConnsPerMirror = s.MaxConns, s.MaxConnsPerMirror
		qs.SpeedLimit, qs.StartOnLaunch = s.SpeedLimit, s.StartOnLaunch
		// The running Runner follows Jobs within a poll (Runner.Run).
		qs.Jobs = max(0, s.MaxJobs)
	})
	if err != nil {
		return err
	}
	if err := b.q.SetRequireSignature(s.RequireSignature); err != nil {
		return err
	}
	if err := b.setTorrentSettings(s.Torrent); err != nil {
		return err
	}
	sched, err := b.q.Schedule()
	if err != nil {
		return err
	}
	if sched.AltLimit != s.AltSpeedLimit {
		sched.AltLimit = s.AltSpeedLimit
		if err := b.q.SetSchedule(sched); err != nil {
			return err
		}
	}
	// The limit in force may have changed: it reaches the downloads and
	// torrents under way at once, without stopping them.
	b.svc.LimitsChanged()
	return nil
}
