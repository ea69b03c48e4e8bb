package bridge

// loadSeedPaused reads the done torrents whose seeding the user paused
// before a restart, so they show paused still and Resume seeds them
// again. An unreadable record loses only that: they show done.
func (b *Backend) loadSeedPaused() {
	ids, err := b.q.SeedPaused()
	if err != nil {
		return // they show done, and Resume says it is not possible
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	for id := range ids {
		b.seedPaused[id] = true
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
