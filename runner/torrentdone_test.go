package runner

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"braid/engine/torrent"
	"braid/engine/torrent/torrenttest"
	"braid/internal/testkit"
	"braid/queue"
)

// A torrent job that does not seed ends its run twice over: Complete and
// Done are both closed. When the runner looks only after both closed (its
// loop was busy, as a slow Observer or a slow disk makes it), it must
// still count the job done, never as failed with a nil error ("job 1:
// job 1: %!w(<nil>)", which `braid get` printed under Wine). Go picks
// either of two ready cases at random, so several jobs run: each one the
// old runner took through Done failed (all 8 passing by chance: 1 in 256).
func TestTorrentJobEndedWhileTheRunnerWasBusy(t *testing.T) {
	t.Parallel()
	const jobs = 8
	q := noSeedQueue(t)
	// Three seconds for all: the runner's first look at each job (after
	// a second) comes before its end. The data comes from peers, not
	// web seeds: anacrolix/torrent v1.59.1 races on its web seed timer
	// (the race detector sees it when many web-seeded torrents run).
	c := torrent.NewClient(torrent.Config{ListenHost: "127.0.0.1", Logger: slog.New(slog.DiscardHandler), DownloadLimit: 512 << 10})
	t.Cleanup(func() { c.Close() })
	r := runner(q)
	r.Torrent = c
	r.Observer = &endWaiter{r: r, waited: map[int64]bool{}}
	type job struct {
		id   int64
		dest string
		data []byte
	}
	var all []job
	src := t.TempDir()
	for i := range jobs {
		data := testkit.Data(192<<10 + i)
		name := fmt.Sprintf("d%d.bin", i)
		mi := torrenttest.Make(t, src, name, 32<<10, []torrenttest.File{{Data: data}})
		peer := torrenttest.Seed(t, src, mi)
		magnet := "magnet:?xt=urn:btih:" + mi.HashInfoBytes().HexString() + "&dn=" + name + "&x.pe=" + peer
		dest := t.TempDir()
		all = append(all, job{addTorrent(t, q, magnet, dest, nil), filepath.Join(dest, name), data})
	}
	errs := make(chan error, jobs)
	for _, j := range all {
		go func() { errs <- r.RunJob(context.Background(), j.id) }()
	}
	for range all {
		if err := <-errs; err != nil {
			t.Errorf("RunJob: %v", err)
			if strings.Contains(err.Error(), "%!") {
				t.Errorf("the error is badly formatted: %q", err.Error())
			}
		}
	}
	for _, j := range all {
		if s := mustJob(t, q, j.id).State; s != queue.Done {
			t.Errorf("job %d is %s", j.id, s)
		}
		got, err := os.ReadFile(j.dest)
		if err != nil || string(got) != string(j.data) {
			t.Errorf("job %d's file: %v", j.id, err)
		}
	}
}

// endWaiter is an Observer whose first Progress call of each job waits
// until that job's torrent has ended, so the job's loop, which told it,
// next finds both Complete and Done closed.
type endWaiter struct {
	quietObserver
	r      *Runner
	mu     sync.Mutex
	waited map[int64]bool
}

func (o *endWaiter) Interval() time.Duration { return time.Second }

func (o *endWaiter) Progress(f *FileRun, _ Progress) {
	o.mu.Lock()
	first := !o.waited[f.Job]
	o.waited[f.Job] = true
	o.mu.Unlock()
	if !first {
		return
	}
	o.r.tor.mu.Lock()
	tj := o.r.tor.running[f.Job]
	o.r.tor.mu.Unlock()
	if tj == nil {
		return
	}
	select {
	case <-tj.Done():
	case <-time.After(time.Minute):
	}
}
