//go:build !headless

package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"braid/engine/mirrortest"
	"braid/engine/resourcesync/rstest"
	"braid/queue"
	"braid/runner"
	"braid/ui"
)

// Sync is a face of the one runner too: a ResourceSync folder is a job of
// the queue (its kind, sync), added by runner.Add and run by the runner
// whichever face asks. TestFacesRunOneSyncAlike syncs one source with
// `braid sync`, with `braid queue run` and in the window, interrupts each
// once its first file has landed, runs it again as that face's user does,
// and checks that every face leaves the same record: paused with the
// first file kept after the interrupt; done, both files synced and the
// first not fetched again, after the second run.

const (
	syncSmall = 256 << 10
	syncBig   = 4 << 20
	// syncRate is the speed limit of every face's first run, so that the
	// interrupt lands while the big file downloads.
	syncRate = 1 << 20
)

// syncFace is one way a user syncs a folder. start begins it (run 0:
// adds the sync; after the interrupt: runs it again).
type syncFace interface {
	name() string
	start(t *testing.T, run int) faceRun
}

// syncFaceDirs are a sync face's source, state folder and folder.
type syncFaceDirs struct {
	src         *rstest.Source
	state, dest string
}

// syncFaces are the three faces that sync, each with its own state
// folder and folder, on src.
func syncFaces(t *testing.T, src *rstest.Source) []syncFace {
	d := func() syncFaceDirs { return syncFaceDirs{src: src, state: t.TempDir(), dest: t.TempDir()} }
	return []syncFace{syncCmdFace{d()}, syncQueueRunFace{d(), new(int64)}, syncWindowFace{d(), new(ui.JobID)}}
}

// limitSpeed sets the state folder's speed limit (0: none), which queue
// run and the window follow.
func limitSpeed(t *testing.T, state string, rate int64) {
	t.Helper()
	q, err := queue.Open(state)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	if err := q.UpdateSettings(func(s *queue.Settings) { s.SpeedLimit = rate }); err != nil {
		t.Fatal(err)
	}
}

// syncCmdFace is `braid sync`: the same command line both times, but for
// the first run's --limit.
type syncCmdFace struct{ syncFaceDirs }

func (syncCmdFace) name() string { return "sync" }

func (f syncCmdFace) start(t *testing.T, run int) faceRun {
	args := []string{"--state", f.state, "-d", f.dest, f.src.URL()}
	if run == 0 {
		args = append([]string{"--limit", strconv.Itoa(syncRate)}, args...)
	}
	return commandRun(t, func(ctx context.Context, out *lockedBuffer) int {
		return cmdSync(ctx, args, out, out)
	}, "exit 1, saying how to finish, in words", func(code int, out string) bool {
		return code == 1 && strings.Contains(out, "interrupted; run the same braid sync again to finish it") && !strings.Contains(out, "context canceled")
	})
}

// syncQueueRunFace is `braid queue run` of a sync job added as the
// window adds one (runner.Add); after the interrupt its user resumes it
// with `braid queue resume ID` and runs the queue again.
type syncQueueRunFace struct {
	syncFaceDirs
	id *int64
}

func (syncQueueRunFace) name() string { return "queue run" }

func (f syncQueueRunFace) start(t *testing.T, run int) faceRun {
	if run == 0 {
		limitSpeed(t, f.state, syncRate)
		q, err := queue.Open(f.state)
		if err != nil {
			t.Fatal(err)
		}
		added, err := runner.Add(context.Background(), q, f.src.URL(), runner.AddOptions{Dir: f.dest, Sync: true})
		q.Close()
		if err != nil || !added.Queued {
			t.Fatalf("add the sync: %+v, %v", added, err)
		}
		*f.id = added.ID
		return queueRunOf(t, f.state, 0)
	}
	limitSpeed(t, f.state, 0)
	return queueRunOf(t, f.state, *f.id)
}

// syncWindowFace is the window's bridge: Open reads the source as a
// ResourceSync one, and Add with its document adds the sync; closing the
// window is the interrupt, and the next session's Resume (Sync again)
// finishes it. What it says is the rows it showed.
type syncWindowFace struct {
	syncFaceDirs
	id *ui.JobID
}

func (syncWindowFace) name() string { return "window" }

func (f syncWindowFace) start(t *testing.T, run int) faceRun {
	// Both runs at the limit: the second one's rows must show it live.
	limitSpeed(t, f.state, syncRate)
	q, b, fail := openFaceWindow(t, f.state)
	ctx := context.Background()
	if run == 0 {
		doc, err := b.Open(ctx, f.src.URL())
		if err != nil {
			fail(err)
		}
		if !b.SyncDocument(doc) {
			fail(fmt.Errorf("%s was not read as a ResourceSync source", f.src.URL()))
		}
		if *f.id, err = b.Add(ctx, ui.AddRequest{Source: f.src.URL(), Doc: doc, Dir: f.dest, Sync: true}); err != nil {
			fail(err)
		}
	} else {
		if _, err := b.Jobs(); err != nil { // the window lists the queue first
			fail(err)
		}
		if err := b.Resume(*f.id); err != nil {
			fail(err)
		}
	}
	return watchWindow(t, q, b, *f.id, ui.Synced)
}

// syncRecord is what the queue keeps of a face's sync job, less its folder
// and times.
type syncRecord struct {
	Kind, Source  string
	State         queue.State
	Error         string
	Sets          int
	Synced        bool
	Files         []string // name:size:hashes
	FileRowsOfJob int
}

// theSyncJob reads the state folder's one job and what its sets record.
func theSyncJob(t *testing.T, state string) (queue.Job, syncRecord) {
	t.Helper()
	q, err := queue.Open(state)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	list, err := q.List()
	if err != nil || len(list) != 1 {
		t.Fatalf("the queue holds %d jobs (%v), want the sync's", len(list), err)
	}
	j := list[0]
	sets, err := q.SyncSets(j.ID)
	if err != nil {
		t.Fatal(err)
	}
	rec := syncRecord{Source: j.Source, State: j.State, Error: j.Error, Sets: len(sets), FileRowsOfJob: len(j.Files)}
	if j.Sync {
		rec.Kind = "sync"
	}
	for _, s := range sets {
		rec.Synced = !s.SyncedAt.IsZero()
		for name, f := range s.Files {
			rec.Files = append(rec.Files, fmt.Sprintf("%s:%d:%v", name, f.Size, f.Hashes))
		}
	}
	slices.Sort(rec.Files)
	return j, rec
}

func TestFacesRunOneSyncAlike(t *testing.T) {
	t.Parallel()
	src := rstest.New(t)
	small, big := mirrortest.Bytes(syncSmall, 31), mirrortest.Bytes(syncBig, 32)
	src.Put("/small.bin", small)
	src.Put("/data/big.bin", big)
	paused, done := map[string]syncRecord{}, map[string]syncRecord{}
	var order []string
	for _, fc := range syncFaces(t, src) {
		order = append(order, fc.name())
		var d syncFaceDirs
		switch f := fc.(type) {
		case syncCmdFace:
			d = f.syncFaceDirs
		case syncQueueRunFace:
			d = f.syncFaceDirs
		case syncWindowFace:
			d = f.syncFaceDirs
		}
		t.Run(fc.name(), func(t *testing.T) {
			run := fc.start(t, 0)
			for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
				// Its record is written in a batch at the set's end, or
				// at the interrupt; the file lands at its name first.
				if _, err := os.Stat(filepath.Join(d.dest, "small.bin")); err == nil {
					break
				}
				if time.Now().After(deadline) {
					run.stop()
					t.Fatal("small.bin was not synced in a minute")
				}
			}
			run.stop()

			j, rec := theSyncJob(t, d.state)
			if j.State != queue.Paused || j.Error != "" || rec.Kind != "sync" || rec.Synced || len(rec.Files) != 1 || !strings.HasPrefix(rec.Files[0], "small.bin:") {
				t.Errorf("after the interrupt: %s %q, record %+v; want a paused sync job with small.bin kept", j.State, j.Error, rec)
			}
			paused[fc.name()] = rec

			before := src.BytesServed()
			ok, said := fc.start(t, 1).end()
			if !ok {
				t.Fatalf("the second run did not end well:\n%s", said)
			}
			again := src.BytesServed() - before
			t.Logf("%s: the second run fetched %d bytes; said:\n%s", fc.name(), again, said)
			if again > syncBig {
				t.Errorf("the second run fetched %d bytes, more than big.bin's %d: small.bin came again", again, syncBig)
			}
			for name, want := range map[string][]byte{"small.bin": small, "data/big.bin": big} {
				if got, err := os.ReadFile(filepath.Join(d.dest, filepath.FromSlash(name))); err != nil || !bytes.Equal(got, want) {
					t.Errorf("%s after the second run: %d bytes, %v", name, len(got), err)
				}
			}
			j, rec = theSyncJob(t, d.state)
			if j.State != queue.Done || j.Dest != d.dest || !rec.Synced || len(rec.Files) != 2 {
				t.Errorf("after the second run: job %s in %s, record %+v; want done in %s, both files synced", j.State, j.Dest, rec, d.dest)
			}
			if fc.name() == "window" && !strings.Contains(said, "showed live progress") {
				t.Errorf("the window never showed the sync running with bytes done:\n%s", said)
			}
			done[fc.name()] = rec
		})
	}
	for _, name := range order[1:] {
		for what, recs := range map[string]map[string]syncRecord{"after the interrupt": paused, "done": done} {
			a, aok := recs[order[0]]
			b, bok := recs[name]
			if aok && bok && !reflect.DeepEqual(a, b) {
				t.Errorf("%s, the queue's record differs:\n%s: %+v\n%s: %+v", what, order[0], a, name, b)
			}
		}
	}
}
