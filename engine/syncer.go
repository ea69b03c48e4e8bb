package engine

import (
	"context"
	"fmt"
	"time"
)

// syncEvery is how often finished pieces are synced to disk and recorded
// in the journal: a crash loses at most this much work. In between, every
// writebackEvery, the kernel is asked to start writing what is dirty, so
// neither the periodic syncs nor the one before the rename wait long.
const (
	syncEvery      = time.Second
	writebackEvery = 200 * time.Millisecond
)

// JournalResetter is a Journal that can forget a file's pieces. The engine
// calls Reset when a file without piece hashes failed its whole-file hash,
// so the pieces it recorded were not good after all, before fetching them
// all again.
type JournalResetter interface {
	Journal
	Reset(file string) error
}

// syncLoop syncs and journals finished pieces about once a second until
// ctx ends, then once more. A failing journal is retried at the next tick;
// the last error is returned.
func (d *download) syncLoop(ctx context.Context) error {
	t := time.NewTicker(writebackEvery)
	defer t.Stop()
	var last error
	lastSync := time.Now()
	for {
		select {
		case now := <-t.C:
			if now.Sub(lastSync) < syncEvery {
				d.st.startWriteback()
				continue
			}
			lastSync = now
			last = d.flush()
		case <-ctx.Done():
			if err := d.flush(); err != nil {
				return err
			}
			return last
		}
	}
}

// flush makes the pieces finished so far durable, then records them.
// Only the sync loop calls it, so syncs and journal calls never overlap.
func (d *download) flush() error {
	d.mu.Lock()
	batch := append(d.unjournaled, d.pending...)
	d.pending, d.unjournaled = nil, nil
	d.mu.Unlock()
	if len(batch) == 0 {
		return nil
	}
	err := d.st.sync()
	if j := d.req.Journal; err == nil && j != nil {
		if err = j.PiecesDone(d.file.Name, batch); err != nil {
			err = fmt.Errorf("journal: %w", err)
		}
	}
	if err != nil {
		d.mu.Lock()
		d.unjournaled = append(batch, d.unjournaled...)
		d.mu.Unlock()
	}
	return err
}
