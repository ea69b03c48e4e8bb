package runner

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"time"

	"braid/engine/torrent"
	"braid/queue"
)

// seedRecordEvery is how often a seeding torrent's upload and time are
// recorded while it seeds: a crash loses at most this much of them, and
// the torrent seeds on after it.
const seedRecordEvery = time.Minute

// selectNamed is a torrent Request's Select for a job's selected files:
// the torrent's files of those names, or every file when none matches (a
// job queued from a magnet link before its file list was known has one
// file named after the torrent).
func selectNamed(selected []string) func(context.Context, []torrent.File) []bool {
	return func(_ context.Context, files []torrent.File) []bool {
		sel := make([]bool, len(files))
		matched := false
		for i, f := range files {
			for _, n := range selected {
				if n == f.Name {
					sel[i], matched = true, true
				}
			}
		}
		if !matched {
			for i := range sel {
				sel[i] = true
			}
		}
		return sel
	}
}

// recordSeeded records what job id's torrent has seeded, over all its
// runs, and whether it seeds on at the next start (active).
func (r *Runner) recordSeeded(id int64, tj *torrent.Job, active bool) error {
	s := tj.Seeded()
	return r.Queue.SetSeeded(id, queue.Seeded{Uploaded: s.Uploaded, Time: s.Time, Active: active})
}

// watchSeeding records what job id's torrent seeds, now, once a minute
// and when it ends: one that Close stopped (Braid quits) before its
// ratio or time was reached seeds on at the next start (SeedAgain); one
// that reached it, that the user paused or stopped, or that failed does
// not.
func (r *Runner) watchSeeding(id int64, tj *torrent.Job) {
	life := r.seedLife()
	_ = r.recordSeeded(id, tj, true)
	r.tor.watch.Add(1)
	go func() {
		defer r.tor.watch.Done()
		tick := time.NewTicker(seedRecordEvery)
		defer tick.Stop()
		for {
			select {
			case <-tj.Done():
				// Stopped by Close, unless the user stopped it first: Braid
				// may be quitting by the time this runs.
				quit := !r.tor.userStopped(tj) && life.Err() != nil
				_ = r.recordSeeded(id, tj, quit && !tj.GoalReached() && tj.Err() == nil)
				return
			case <-tick.C:
				_ = r.recordSeeded(id, tj, true)
			}
		}
	}()
}

// seedOnce seeds on the torrents seeding when Braid last stopped, once
// per runner (at its first run, or when a Service has nothing to run);
// one that cannot is logged, and its job stays done.
func (r *Runner) seedOnce() {
	r.tor.firstRun.Do(func() { _, _ = r.SeedAgain() })
}

// SeedAgain seeds on the done torrents that were seeding when Braid last
// stopped (the window closed, braid queue run ended) and have not reached
// their seed ratio or time, as the settings say now, counting what they
// seeded before; a torrent whose seeding the user paused stays paused.
// Each is added again over its files at their final names with the piece
// completion recorded when it was downloaded: nothing is fetched and
// nothing hashed (a piece not recorded is hashed, as at any start). A job
// whose files are gone or changed in size does not seed, and is not
// tried again at the next start; one that fails for a passing cause is
// (seedsNoMore). The error, the log and NotSeedingOn say which. Only the
// queue's owner seeds. Safe for concurrent use.
func (r *Runner) SeedAgain() ([]int64, error) {
	if !r.Queue.TryOwn() {
		return nil, fmt.Errorf("seed again: %w", queue.ErrNotOwner)
	}
	r.tor.again.Lock()
	defer r.tor.again.Unlock()
	ids, err := r.Queue.SeedingOn()
	if err != nil {
		return nil, err
	}
	var started []int64
	var errs []error
	for _, id := range ids {
		if _, live := r.liveOnly(id); live {
			continue
		}
		ok, err := r.seedAgain(id)
		if err != nil {
			cmp.Or(r.TorrentOptions.Logger, slog.Default()).Warn("a torrent does not seed on", "job", id, "err", err)
			r.tor.mu.Lock()
			if r.tor.notAgain == nil {
				r.tor.notAgain = map[int64]error{}
			}
			r.tor.notAgain[id] = err
			r.tor.mu.Unlock()
			errs = append(errs, err)
			if seedsNoMore(err) {
				prior, _ := r.Queue.Seeded(id)
				prior.Active = false
				errs = append(errs, r.Queue.SetSeeded(id, prior))
			}
			continue
		}
		if ok {
			started = append(started, id)
			r.tor.mu.Lock()
			delete(r.tor.notAgain, id)
			r.tor.mu.Unlock()
		}
	}
	return started, errors.Join(errs...)
}

// errNotStored: a done torrent job whose torrent the queue does not hold
// cannot be seeded again.
var errNotStored = errors.New("its torrent was not stored")

// seedsNoMore tells whether why a torrent did not seed on (SeedAgain) holds
// for good, so that it is not tried at the next start either: its files
// are gone or changed, or its torrent was not kept. A passing cause (the
// BitTorrent port still held by a program that is closing, a disk not
// mounted yet) leaves it to seed on at the next start.
func seedsNoMore(err error) bool {
	var gone *SeedGoneError
	return errors.As(err, &gone) || errors.Is(err, errNotStored)
}

// NotSeedingOn returns why each done job that was to seed on at this
// runner's start did not (SeedAgain), by job; empty when all did. Safe
// for concurrent use.
func (r *Runner) NotSeedingOn() map[int64]error {
	r.tor.mu.Lock()
	defer r.tor.mu.Unlock()
	return maps.Clone(r.tor.notAgain)
}

// NotSeedingAgain returns why done job id did not seed on at this
// runner's start (SeedAgain), for a display to say; nil when it did, or
// was not to. A *SeedGoneError says which file is gone or changed. Safe
// for concurrent use.
func (r *Runner) NotSeedingAgain(id int64) error {
	r.tor.mu.Lock()
	defer r.tor.mu.Unlock()
	return r.tor.notAgain[id]
}

// SeedGoneError is why a torrent does not seed on: one of its files is no
// longer where its download left it, or no longer its size.
type SeedGoneError struct {
	Job  int64
	File string // the file's path in the torrent
	// Changed: the file is there at another size; else it is gone.
	Changed bool
	Err     error // what queue.Job.OnDisk said
}

func (e *SeedGoneError) Error() string {
	if e.Changed {
		return fmt.Sprintf("job %d: seed again: %v", e.Job, e.Err)
	}
	return fmt.Sprintf("job %d: seed again: %s: %v", e.Job, e.File, e.Err)
}

func (e *SeedGoneError) Unwrap() error { return e.Err }

// seedAgain starts seeding done job id again; false when its goal is
// reached already (it is then recorded as not seeding on).
func (r *Runner) seedAgain(id int64) (bool, error) {
	q := r.Queue
	j, err := q.Get(id)
	if err != nil || j.State != queue.Done {
		return false, err
	}
	spec, stored, err := q.TorrentSpec(id)
	if err != nil {
		return false, err
	}
	if !stored {
		return false, fmt.Errorf("job %d: seed again: %w", id, errNotStored)
	}
	ts, err := r.torrentSettings()
	if err != nil {
		return false, err
	}
	prior, err := q.Seeded(id)
	if err != nil {
		return false, err
	}
	var selected []string
	var size int64
	for _, f := range j.Files {
		if !f.Selected {
			continue
		}
		selected = append(selected, f.Name)
		size += max(f.Size, 0)
		// The files are where the download left them, or it does not
		// seed: a torrent over missing files would fetch them again.
		if err := j.OnDisk(f); err != nil {
			return false, &SeedGoneError{Job: id, File: f.Path(), Changed: errors.Is(err, queue.ErrResized), Err: err}
		}
	}
	seeded := torrent.Seeded{Uploaded: prior.Uploaded, Time: prior.Time}
	if seeded.GoalReached(ts.SeedRatio, ts.SeedTime, size) {
		prior.Active = false
		return false, q.SetSeeded(id, prior)
	}
	comp, err := q.TorrentPieces(j.Dest)
	if err != nil {
		return false, err
	}
	client, err := r.TorrentClient()
	if err != nil {
		return false, fmt.Errorf("job %d: seed again: %w", id, err)
	}
	tj, err := client.Start(r.seedLife(), &torrent.Request{
		Dir: j.Dest, Spec: spec, Completion: comp,
		SeedRatio: ts.SeedRatio, SeedTime: ts.SeedTime, Seeded: seeded,
		Select: selectNamed(selected),
	})
	if err != nil {
		return false, fmt.Errorf("job %d: seed again: %w", id, err)
	}
	r.tor.mu.Lock()
	if r.tor.seeding == nil {
		r.tor.seeding = map[int64]*torrent.Job{}
	}
	r.tor.seeding[id] = tj
	r.tor.mu.Unlock()
	r.watchSeeding(id, tj)
	return true, nil
}
