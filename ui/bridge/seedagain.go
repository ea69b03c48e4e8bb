package bridge

import "log/slog"

// seedAgain seeds on, in the background, the torrents that were seeding
// when Braid last stopped and have not reached their goal
// (runner.SeedAgain); their rows show them seeding as they start. One
// that cannot (its files gone) stays done, and Braid's log says why.
func (b *Backend) seedAgain() {
	b.wg.Add(1)
	go func() {
		defer b.wg.Done()
		started, err := b.runner.SeedAgain()
		if err != nil {
			slog.Warn("some torrents do not seed on", "err", err)
		}
		if len(started) > 0 {
			b.changed()
		}
	}()
}
