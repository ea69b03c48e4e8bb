package bridge

// seedAgain seeds on, in the background, the torrents that were seeding
// when Braid last stopped and have not reached their goal
// (runner.SeedAgain); their rows show them seeding as they start. One
// that cannot (its files gone) stays done, and its row says why (seedNote).
func (b *Backend) seedAgain() {
	b.wg.Add(1)
	go func() {
		defer b.wg.Done()
		if started, err := b.runner.SeedAgain(); len(started) > 0 || err != nil {
			b.changed()
		}
	}()
}
