package bridge

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"braid/engine/metalink"
	"braid/ui"
)

// A job added paused is paused from the moment it is in the queue: it
// was added queued and paused after, and a runner that took it in
// between downloaded it. Another connection to the database, as another
// Braid's runner would, watches every job's state while the window adds.
func TestAddedPausedIsNeverQueued(t *testing.T) {
	t.Parallel()
	q := openQueue(t)
	b := newBackend(t, q)
	db, err := sql.Open("sqlite3", "file:"+q.Path()+"?_busy_timeout=1000")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var seenQueued atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			var n int64
			if db.QueryRow(`SELECT count(*) FROM jobs WHERE state = 'queued'`).Scan(&n) == nil && n > 0 {
				seenQueued.Add(n)
			}
		}
	}()
	dir := t.TempDir()
	for i := range 40 {
		d := &metalink.Document{Version: 4, Files: []metalink.File{{Name: fmt.Sprintf("p%02d.bin", i), Size: 10,
			URLs: []metalink.URL{{URL: "http://127.0.0.1:9/p.bin", Priority: 1}}}}}
		if _, err := b.Add(context.Background(), ui.AddRequest{Source: "p.meta4", Doc: d, Dir: dir, Paused: true}); err != nil {
			t.Fatal(err)
		}
	}
	close(stop)
	wg.Wait()
	if n := seenQueued.Load(); n > 0 {
		t.Errorf("jobs added paused were seen queued %d times", n)
	}
}
