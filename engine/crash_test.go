package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"braid/engine/metalink"
	"braid/engine/mirrortest"
	"braid/engine/piece"
	"braid/internal/testkit"
)

// crashEnv makes the test binary a child that downloads the file described
// in $crashEnv/file.json into $crashEnv with a fileJournal, for the crash
// test to kill.
const crashEnv = "BRAID_ENGINE_CRASH_CHILD"

func TestMain(m *testing.M) {
	if dir := os.Getenv(crashEnv); dir != "" {
		os.Exit(crashChild(dir))
	}
	os.Exit(m.Run())
}

// crashPaused is the exit code of a child paused (see pauseContext).
const crashPaused = 3

func crashChild(dir string) int {
	b, err := os.ReadFile(filepath.Join(dir, "file.json"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	var f metalink.File
	if err := json.Unmarshal(b, &f); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	j := &fileJournal{path: filepath.Join(dir, "journal"), n: piece.PlanFor(f).Count()}
	done, err := j.load()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	// The test's pause (see pauseContext) is the user's pause or Ctrl-C.
	ctx, stop := pauseContext()
	defer stop()
	dl := (&Client{}).Do(ctx, &Request{Dir: filepath.Join(dir, "out"), File: f, Done: done, Journal: j})
	if err := dl.Err(); errors.Is(err, context.Canceled) {
		return crashPaused
	} else if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// fileJournal is a journal in one file, the bitfield of done pieces,
// replaced atomically and synced at each call, as the queue's is durable.
type fileJournal struct {
	path string
	n    int
	mu   sync.Mutex
	bits *piece.Bitfield
}

func (j *fileJournal) load() (*piece.Bitfield, error) {
	b, err := os.ReadFile(j.path)
	if os.IsNotExist(err) {
		j.bits = piece.NewBitfield(j.n)
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if j.bits, err = piece.UnmarshalBitfield(b, j.n); err != nil {
		return nil, err
	}
	return j.bits.Clone(), nil
}

func (j *fileJournal) PiecesDone(_ string, pieces []int) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	for _, i := range pieces {
		j.bits.Set(i)
	}
	b, err := j.bits.MarshalBinary()
	if err != nil {
		return err
	}
	f, err := os.Create(j.path + ".tmp")
	if err != nil {
		return err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(j.path+".tmp", j.path)
}

// A child process downloading from two mirrors is killed with SIGKILL at
// random moments and started again each time: every run keeps what the
// killed one wrote (journaled or only logged), so the mirrors serve the
// file once plus at most a few pieces in flight per kill.
func TestCrashKeepsWrittenPieces(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts child processes")
	}
	const pl = 256 << 10
	data := testkit.Data(24 << 20)
	ms := []*mirrortest.Mirror{
		mirrortest.New(t, data, addr(0), mirrortest.Rate(6<<20)),
		mirrortest.New(t, data, addr(1), mirrortest.Rate(6<<20)),
	}
	stopChildren(t, fileFor("crash.bin", data, pl, urls(ms...)...), data, ms, func(int) (bool, int64) { return false, 2 << 20 })
}

// stopChildren runs crash children on f until one finishes it, stopping
// the first four at random moments, each paused (see pauseChild) or
// killed as sig says, and checks the file and that the mirrors served it
// once plus at most what sig allows each stop to cost.
func stopChildren(t *testing.T, f metalink.File, data []byte, ms []*mirrortest.Mirror, sig func(stop int) (pause bool, cost int64)) {
	dir := t.TempDir()
	b, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "file.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "out"), 0o755); err != nil {
		t.Fatal(err)
	}
	served := func() int64 {
		var n int64
		for _, m := range ms {
			n += m.BytesServed()
		}
		return n
	}
	var allowed int64 // bytes the stops may cost
	r := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 1))
	kills := 0
	for run := 0; ; run++ {
		if run > 30 {
			t.Fatal("no run finished the file in 30 tries")
		}
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), crashEnv+"="+dir)
		pauseChild, err := prepareChild(cmd)
		if err != nil {
			t.Fatal(err)
		}
		out, err := os.Create(filepath.Join(dir, fmt.Sprintf("run%d.log", run)))
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stdout, cmd.Stderr = out, out
		if err := cmd.Start(); err != nil {
			out.Close()
			t.Fatal(err)
		}
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		// The log is closed and the child has ended before any failure:
		// Windows cannot remove a file that is still open.
		fail := func(format string, args ...any) {
			out.Close()
			log, _ := os.ReadFile(out.Name())
			t.Fatalf(format+"\n%s", append(args, log)...)
		}
		finished := false
		if kills < 4 {
			before := served()
			select {
			case err = <-exited:
				finished = true
			case <-time.After(time.Duration(200+r.IntN(600)) * time.Millisecond):
				pause, cost := sig(kills)
				allowed += cost
				how := "killed"
				if pause {
					how = "paused"
					if err := pauseChild(); err != nil {
						cmd.Process.Kill()
						<-exited
						fail("run %d: pause: %v", run, err)
					}
				} else {
					cmd.Process.Kill()
				}
				err := <-exited
				var ee *exec.ExitError
				if pause && (!errors.As(err, &ee) || ee.ExitCode() != crashPaused) {
					fail("run %d, paused: %v, want exit code %d (paused)", run, err, crashPaused)
				}
				kills++
				t.Logf("run %d %s after %d bytes served", run, how, served()-before)
			}
		} else {
			select {
			case err = <-exited:
				finished = true
			case <-time.After(2 * time.Minute):
				cmd.Process.Kill()
				<-exited
				fail("the last run did not finish in 2 minutes")
			}
		}
		if finished && err != nil {
			fail("run %d: %v", run, err)
		}
		out.Close()
		if finished {
			break
		}
	}
	wantFile(t, filepath.Join(dir, "out"), f.Name, data)
	extra := served() - int64(len(data))
	t.Logf("%d stops: served %d bytes for %d, %d again", kills, served(), len(data), extra)
	if extra > allowed {
		t.Fatalf("served %d bytes more than the file over %d stops; want at most %d", extra, kills, allowed)
	}
}

// The piece log names pieces whose bytes may not have reached the disk
// (a power loss): each is checked against its hash, and only the good
// ones are kept.
func TestPieceLogCheckedAgainstHashes(t *testing.T) {
	t.Parallel()
	const pl = 64 << 10
	data := testkit.Data(16 * pl)
	m := mirrortest.New(t, data, addr(0))
	dir := t.TempDir()
	part := append([]byte(nil), data[:8*pl]...)
	part[3*pl+5] ^= 1 // piece 3 never made it intact
	if err := os.WriteFile(filepath.Join(dir, "f.bin.part"), part, 0o644); err != nil {
		t.Fatal(err)
	}
	var log []byte
	for i := range 6 {
		log = append(log, byte(i), 0, 0, 0)
	}
	if err := os.WriteFile(filepath.Join(dir, "f.bin.part.done"), log, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := get(t, &Client{}, &Request{Dir: dir, File: fileFor("f.bin", data, pl, m.URL())}); err != nil {
		t.Fatal(err)
	}
	wantFile(t, dir, "f.bin", data)
	// Pieces 0-2 and 4-5 were kept; 3 and 6-15 fetched.
	if got, want := m.BytesServed(), int64(11*pl); got != want {
		t.Fatalf("served %d bytes, want %d (the bad piece and the unlogged ones)", got, want)
	}
	if _, err := os.Stat(filepath.Join(dir, "f.bin.part.done")); !os.IsNotExist(err) {
		t.Fatalf("the piece log is left behind: %v", err)
	}
}

// A file of one piece keeps no piece log (see openPieceLog); a file of
// several pieces keeps one while it downloads.
func TestPieceLogOnlyForSeveralPieces(t *testing.T) {
	t.Parallel()
	const pl = 64 << 10
	for _, tc := range []struct {
		name   string
		pieces int
		log    bool
	}{
		{"one piece", 1, false},
		{"four pieces", 4, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := testkit.Data(tc.pieces * pl)
			// The mirror sends the first pieces but never the last byte.
			m := mirrortest.New(t, data, addr(0), mirrortest.StallAfter(int64(len(data)-1)))
			dir := t.TempDir()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			dl := (&Client{StallTimeout: time.Minute}).Do(ctx, &Request{Dir: dir, File: fileFor("f.bin", data, pl, m.URL())})
			deadline := time.Now().Add(30 * time.Second)
			for m.BytesServed() < int64(len(data)-1) {
				if time.Now().After(deadline) {
					t.Fatalf("the mirror served %d bytes in 30 s", m.BytesServed())
				}
				time.Sleep(10 * time.Millisecond)
			}
			if _, err := os.Stat(filepath.Join(dir, "f.bin.part")); err != nil {
				t.Fatalf("no .part while downloading: %v", err)
			}
			_, err := os.Stat(filepath.Join(dir, "f.bin.part.done"))
			switch {
			case tc.log && err != nil:
				t.Fatalf("a file of %d pieces keeps no piece log: %v", tc.pieces, err)
			case !tc.log && !os.IsNotExist(err):
				t.Fatalf("a file of one piece has a piece log (%v)", err)
			}
			if err := dl.Cancel(); !errors.Is(err, context.Canceled) {
				t.Fatalf("Cancel: %v", err)
			}
		})
	}
}

// A store is clean after a sync until the next change, so finish syncs
// only what the sync loop did not.
func TestStoreClean(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	st, err := openStore(dir, "f.bin")
	if err != nil {
		t.Fatal(err)
	}
	defer st.close()
	if _, err := st.openPart(8, false); err != nil {
		t.Fatal(err)
	}
	if st.clean() {
		t.Fatal("a new .part is clean before any sync")
	}
	if err := st.sync(); err != nil {
		t.Fatal(err)
	}
	if !st.clean() {
		t.Fatal("not clean right after a sync")
	}
	if _, err := st.WriteAt([]byte("braid"), 0); err != nil {
		t.Fatal(err)
	}
	if st.clean() {
		t.Fatal("clean after a write")
	}
	if err := st.sync(); err != nil {
		t.Fatal(err)
	}
	st.changed()
	if st.clean() {
		t.Fatal("clean after a change")
	}
	if err := st.finish(); err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(filepath.Join(dir, "f.bin")); err != nil || string(got[:5]) != "braid" {
		t.Fatalf("finished file: %q, %v", got, err)
	}
}
