package bridge

// loadSeedPaused reads the done torrents whose seeding the user paused
// before a restart, so they show paused still and Resume seeds them
// again, and again when another process woke the window (braid queue
// pause or resume changed one). An unreadable record loses only that: they
// show as they did.
func (b *Backend) loadSeedPaused() {
	ids, err := b.q.SeedPaused()
	if err != nil {
		return
	}
	b.mu.Lock()
	b.seedPaused = ids
	b.mu.Unlock()
	// Paused by another process (braid queue pause): it stops here.
	for _, id := range b.runner.Seeding() {
		if ids[id] {
			b.stopSeeding(id)
		}
	}
}

// setSeedPaused records that job id's seeding is paused (on) or no longer
// (resumed, stopped), here and in the queue, which keeps it across a
// restart.
func (b *Backend) setSeedPaused(id int64, on bool) error {
	b.mu.Lock()
	was := b.seedPaused[id]
	if on {
		b.seedPaused[id] = true
	} else {
		delete(b.seedPaused, id)
	}
	b.mu.Unlock()
	if was == on {
		return nil
	}
	return b.q.SetSeedPaused(id, on)
}
