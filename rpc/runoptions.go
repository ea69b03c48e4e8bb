package rpc

import "braid/queue"

// RunOptions are global options that the process running the queue holds
// over the saved settings for its run: braid queue run's --jobs, --limit
// and --max-conn-per-host. 0: the saved setting holds.
type RunOptions struct {
	MaxConcurrent      int   // downloads at once (--jobs)
	MaxOverallDownload int64 // bytes per second over all downloads (--limit)
	MaxConnsPerHost    int   // connections to one host over all downloads (--max-conn-per-host)
}

// HoldRunOptions tells a which options the runner holds over the saved
// settings for this run, so that getGlobalOption answers the values in
// force rather than the saved ones. A change over the RPC of the download
// limit, or of max-connection-per-server beyond the connections to one
// host, is written to the settings and ends that hold: the runner follows
// it from then on. A change of max-concurrent-downloads while --jobs holds
// it is refused: the runner takes --jobs again at each start.
func (a *QueueDownloads) HoldRunOptions(o RunOptions) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.held = o
}

func (a *QueueDownloads) runOptions() RunOptions {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.held
}

// endHolds ends the holds of the options in o (those above 0).
func (a *QueueDownloads) endHolds(o RunOptions) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if o.MaxConcurrent > 0 {
		a.held.MaxConcurrent = 0
	}
	if o.MaxOverallDownload > 0 {
		a.held.MaxOverallDownload = 0
	}
	if o.MaxConnsPerHost > 0 {
		a.held.MaxConnsPerHost = 0
	}
}

// inForce is the saved settings s with the held options over them.
func (o RunOptions) inForce(s queue.Settings) queue.Settings {
	if o.MaxConcurrent > 0 {
		s.Jobs = o.MaxConcurrent
	}
	if o.MaxOverallDownload > 0 {
		s.SpeedLimit = o.MaxOverallDownload
	}
	if o.MaxConnsPerHost > 0 {
		s.MaxConnsPerHost = o.MaxConnsPerHost
	}
	return s
}

// followSettings has the runner apply the queue's settings at once, when
// Live can (else it follows them within about a second).
func (a *QueueDownloads) followSettings() {
	if f, ok := a.Live.(SettingsFollowers); ok {
		f.SettingsChanged()
	}
}
