package torrent_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"database/sql"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"braid/engine/mirrortest"
	"braid/engine/torrent"
	"braid/engine/torrent/torrenttest"
	"braid/queue"
)

// quiet keeps the library's logs out of the test output.
var quiet = slog.New(slog.DiscardHandler)

// runCrashJob downloads tf into dest from webSeed, with comp.
func runCrashJob(ctx context.Context, tf, webSeed, dest string, comp torrent.Completion) error {
	spec, err := torrent.Resolve(ctx, tf, nil)
	if err != nil {
		return err
	}
	spec.WebSeeds = []string{webSeed}
	c := torrent.NewClient(torrent.Config{ListenHost: "127.0.0.1", Logger: quiet})
	defer c.Close()
	j, err := c.Start(ctx, &torrent.Request{Dir: dest, Spec: spec, Completion: comp})
	if err != nil {
		return err
	}
	return j.Err()
}

// The crash test: a real child process downloads a torrent from a slow web
// seed, recording piece completion in the queue's SQLite, and is killed
// with SIGKILL halfway; a second run on the same state finishes the file
// without fetching any piece the first one recorded.
const crashEnv = "BRAID_TORRENT_CRASH_CHILD"

func TestMain(m *testing.M) {
	if code, rerun := torrenttest.RerunWithClassicIO(); rerun {
		os.Exit(code)
	}
	if os.Getenv(crashEnv) != "" {
		os.Exit(crashChild())
	}
	os.Exit(m.Run())
}

// crashChild downloads the torrent file in BRAID_TORRENT_FILE from the web
// seed in BRAID_WEBSEED into BRAID_DEST, with completion in BRAID_STATE.
func crashChild() int {
	fail := func(err error) int { fmt.Fprintln(os.Stderr, err); return 1 }
	q, err := queue.Open(os.Getenv("BRAID_STATE"))
	if err != nil {
		return fail(err)
	}
	defer q.Close()
	dest := os.Getenv("BRAID_DEST")
	comp, err := q.TorrentPieces(dest)
	if err != nil {
		return fail(err)
	}
	if err := runCrashJob(context.Background(), os.Getenv("BRAID_TORRENT_FILE"), os.Getenv("BRAID_WEBSEED"), dest, comp); err != nil {
		return fail(err)
	}
	return 0
}

func TestCrashResume(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts a child process and downloads for several seconds")
	}
	const pl = 64 << 10
	data := make([]byte, 64*pl)
	rand.Read(data)
	slow := mirrortest.New(t, data, mirrortest.Rate(256<<10))
	src := t.TempDir()
	mi := torrenttest.Make(t, src, "crash.bin", pl, []torrenttest.File{{Data: data}})
	tf := torrenttest.WriteFile(t, mi, "crash.torrent")
	state, dest := t.TempDir(), t.TempDir()
	ih := mi.HashInfoBytes().HexString()

	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), crashEnv+"=1", "BRAID_STATE="+state, "BRAID_DEST="+dest,
		"BRAID_TORRENT_FILE="+tf, "BRAID_WEBSEED="+slow.URL())
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
		if t.Failed() {
			t.Logf("child output:\n%s", out.String())
		}
	})

	// Watch the completion table from outside, as another program would.
	db, err := sql.Open("sqlite3", "file:"+filepath.Join(state, queue.DBName)+"?_busy_timeout=100")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	recorded := func() map[int]bool {
		rows, err := db.Query(`SELECT piece FROM torrent_pieces WHERE infohash = ? AND complete`, ih)
		if err != nil {
			return nil
		}
		defer rows.Close()
		m := map[int]bool{}
		for rows.Next() {
			var i int
			if rows.Scan(&i) == nil {
				m[i] = true
			}
		}
		return m
	}
	for deadline := time.Now().Add(90 * time.Second); len(recorded()) < 16; {
		if time.Now().After(deadline) {
			t.Fatalf("16 pieces were not recorded in 90 s (%d)", len(recorded()))
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err := cmd.Process.Kill(); err != nil { // SIGKILL
		t.Fatal(err)
	}
	cmd.Wait()
	atKill := recorded()
	t.Logf("killed with %d of 64 pieces recorded", len(atKill))
	if len(atKill) >= 64 {
		t.Fatal("the download finished before the kill; the test tested nothing")
	}

	q, err := queue.Open(state)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	comp, err := q.TorrentPieces(dest)
	if err != nil {
		t.Fatal(err)
	}
	fast := mirrortest.New(t, data)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := runCrashJob(ctx, tf, fast.URL(), dest, comp); err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(filepath.Join(dest, "crash.bin")); err != nil || !bytes.Equal(got, data) {
		t.Fatalf("file after the crash and resume: %d bytes, %v", len(got), err)
	}
	var again int64
	for _, r := range fast.Ranges() {
		again += r.Sent
		for p := range atKill {
			lo, hi := int64(p)*pl, int64(p+1)*pl
			if r.Off < hi && r.Off+r.Sent > lo {
				t.Fatalf("piece %d, recorded before the kill, was fetched again (%+v)", p, r)
			}
		}
	}
	t.Logf("the second run fetched %d bytes for the %d pieces left", again, 64-len(atKill))
}
