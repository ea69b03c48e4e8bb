package torrent

import "sync"

// Completion keeps which pieces of a torrent are verified on disk, so that
// pause, quit, a crash or a restart resume exactly where they were. The
// queue implements it in SQLite, for one download folder. Set is called
// only after the piece's bytes are synced to disk, so a recorded piece is
// never one the disk could lose. Implementations must be safe for
// concurrent use.
type Completion interface {
	// Load returns what is recorded for the torrent (infoHash in lower-case
	// hex): piece index to complete or not. A piece absent from the map was
	// never recorded.
	Load(infoHash string) (map[int]bool, error)
	// Set records pieces of the torrent as complete or not, all or none:
	// a flush records a second's pieces at once.
	Set(infoHash string, pieces []int, complete bool) error
}

// MemCompletion is a Completion in memory, for downloads that keep no
// state between runs. The zero value is ready to use.
type MemCompletion struct {
	mu sync.Mutex
	m  map[string]map[int]bool
}

var _ Completion = (*MemCompletion)(nil)

// Load returns a copy of what was set for the torrent.
func (c *MemCompletion) Load(infoHash string) (map[int]bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := map[int]bool{}
	for i, ok := range c.m[infoHash] {
		out[i] = ok
	}
	return out, nil
}

// Set records the pieces.
func (c *MemCompletion) Set(infoHash string, pieces []int, complete bool) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[string]map[int]bool{}
	}
	if c.m[infoHash] == nil {
		c.m[infoHash] = map[int]bool{}
	}
	for _, i := range pieces {
		c.m[infoHash][i] = complete
	}
	return nil
}
