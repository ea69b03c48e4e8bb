package runner

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"braid/engine"
	"braid/engine/metalink"
	"braid/engine/mirrortest"
	"braid/engine/piece"
	"braid/engine/torrent/torrenttest"
	"braid/internal/testkit"
	"braid/queue"
	"braid/queue/queuetest"
)

// describe makes the metalink file for data, with piece hashes of
// pieceLen, served by the mirrors.
func describe(t *testing.T, name string, data []byte, pieceLen int64, mirrors ...*mirrortest.Mirror) *metalink.Document {
	t.Helper()
	f, err := piece.Describe(context.Background(), bytes.NewReader(data), int64(len(data)), name, pieceLen, 0)
	if err != nil {
		t.Fatal(err)
	}
	for i, m := range mirrors {
		f.URLs = append(f.URLs, metalink.URL{URL: m.URL(), Priority: i + 1})
	}
	return &metalink.Document{Version: 4, Files: []metalink.File{f}}
}

func served(ms ...*mirrortest.Mirror) int64 {
	var n int64
	for _, m := range ms {
		n += m.BytesServed()
	}
	return n
}

func runner(q *queue.Queue) *Runner { return &Runner{Queue: q, Client: &engine.Client{}} }

func TestRunDownloads(t *testing.T) {
	t.Parallel()
	data := testkit.Data(3<<20 + 123)
	a := mirrortest.New(t, data, mirrortest.Addr("127.0.0.2"))
	b := mirrortest.New(t, data, mirrortest.Addr("127.0.0.3"))
	q := queuetest.Open(t, queue.Open, t.TempDir())
	dest := filepath.Join(t.TempDir(), "new folder")
	id, err := q.Add(queue.NewJob{Source: "x.meta4", Dest: dest, Doc: describe(t, "sub/x.bin", data, 256<<10, a, b)})
	if err != nil {
		t.Fatal(err)
	}
	if err := runner(q).Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(dest, "sub", "x.bin"))
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("downloaded file: %d bytes, %v", len(got), err)
	}
	j, err := q.Get(id)
	if err != nil {
		t.Fatal(err)
	}
	if j.State != queue.Done || !j.Files[0].Verified || j.FinishedAt.IsZero() {
		t.Errorf("job after the run: %s, verified %v", j.State, j.Files[0].Verified)
	}
	if done, pieces, _, _ := j.Progress(); done != pieces {
		t.Errorf("journal recorded %d of %d pieces", done, pieces)
	}
	for _, m := range []*mirrortest.Mirror{a, b} {
		if m.BytesServed() == 0 {
			continue
		}
		if bps, ok, err := q.MirrorSpeed(queue.HostOf(m.URL())); !ok || err != nil || bps <= 0 {
			t.Errorf("no speed learned for %s, which served %d bytes: %v %v", m.Host(), m.BytesServed(), bps, err)
		}
	}
	// queue.Running it again fetches nothing.
	before := served(a, b)
	if err := runner(q).RunJob(context.Background(), id); err != nil {
		t.Errorf("RunJob of a done job: %v", err)
	}
	if n := served(a, b) - before; n != 0 {
		t.Errorf("a done job fetched %d bytes more", n)
	}
}

// TestRunResumes gives the runner a .part and a bitfield in several
// states of agreement and checks what it fetches again.
func TestRunResumes(t *testing.T) {
	t.Parallel()
	const pl = 256 << 10
	data := testkit.Data(4 << 20) // 16 pieces
	half := func(part []byte) []byte { return part[:len(data)/2] }
	for _, tc := range []struct {
		name      string
		recorded  int                 // pieces 0..recorded-1 recorded done
		part      func([]byte) []byte // the .part on disk, from the right bytes
		maxServed int64
		minServed int64
	}{
		{"part agrees", 8, half, int64(len(data)) / 2, int64(len(data)) / 2},
		{"part shorter than recorded", 12, half, int64(len(data)) / 2, int64(len(data)) / 2},
		{"part missing", 8, nil, int64(len(data)), int64(len(data))},
		{"part longer, with a bad recorded piece", 8, func(b []byte) []byte {
			p := append(bytes.Clone(b), "trailing junk"...)
			p[3*pl+10] ^= 0xff // piece 3 recorded done but its bytes are wrong
			return p
		}, int64(len(data))/2 + pl, int64(len(data))/2 + pl},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := mirrortest.New(t, data)
			q := queuetest.Open(t, queue.Open, t.TempDir())
			dest := t.TempDir()
			id, err := q.Add(queue.NewJob{Source: "r.meta4", Dest: dest, Doc: describe(t, "r.bin", data, pl, m)})
			if err != nil {
				t.Fatal(err)
			}
			var done []int
			for i := range tc.recorded {
				done = append(done, i)
			}
			if err := q.Journal(id).PiecesDone("r.bin", done); err != nil {
				t.Fatal(err)
			}
			if tc.part != nil {
				if err := os.WriteFile(filepath.Join(dest, "r.bin.part"), tc.part(bytes.Clone(data)), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if err := runner(q).RunJob(context.Background(), id); err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(filepath.Join(dest, "r.bin"))
			if err != nil || !bytes.Equal(got, data) {
				t.Fatalf("file after resume: %d bytes, %v", len(got), err)
			}
			if n := m.BytesServed(); n < tc.minServed || n > tc.maxServed {
				t.Errorf("mirror served %d bytes, want %d..%d", n, tc.minServed, tc.maxServed)
			}
		})
	}
}

func TestRunPausesOnDestinationProblems(t *testing.T) {
	t.Parallel()
	data := testkit.Data(1 << 20)
	t.Run("folder vanished", func(t *testing.T) {
		m := mirrortest.New(t, data)
		q := queuetest.Open(t, queue.Open, t.TempDir())
		dest := filepath.Join(t.TempDir(), "usb")
		if err := os.Mkdir(dest, 0o755); err != nil {
			t.Fatal(err)
		}
		id, err := q.Add(queue.NewJob{Source: "v.meta4", Dest: dest, Doc: describe(t, "v.bin", data, 256<<10, m)})
		if err != nil {
			t.Fatal(err)
		}
		if err := q.Journal(id).PiecesDone("v.bin", []int{0, 1}); err != nil {
			t.Fatal(err)
		}
		if err := os.RemoveAll(dest); err != nil {
			t.Fatal(err)
		}
		err = runner(q).RunJob(context.Background(), id)
		if !errors.Is(err, queue.ErrPaused) {
			t.Fatalf("RunJob: %v, want ErrPaused", err)
		}
		j, _ := q.Get(id)
		if j.State != queue.Paused || !strings.Contains(j.Error, "no longer exists") || !strings.Contains(j.Error, dest) {
			t.Errorf("job is %s with reason %q", j.State, j.Error)
		}
		if _, err := os.Stat(dest); err == nil {
			t.Error("the runner made the vanished folder again")
		}
		if m.BytesServed() != 0 {
			t.Errorf("%d bytes fetched for a paused job", m.BytesServed())
		}

		// The disk comes back; the user resumes.
		if err := os.Mkdir(dest, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := q.Resume(id); err != nil {
			t.Fatal(err)
		}
		if err := runner(q).RunJob(context.Background(), id); err != nil {
			t.Fatal(err)
		}
		if got, _ := os.ReadFile(filepath.Join(dest, "v.bin")); !bytes.Equal(got, data) {
			t.Error("the resumed job did not produce the file")
		}
	})
	t.Run("folder read-only", func(t *testing.T) {
		m := mirrortest.New(t, data)
		q := queuetest.Open(t, queue.Open, t.TempDir())
		dest := t.TempDir()
		id, err := q.Add(queue.NewJob{Source: "ro.meta4", Dest: dest, Doc: describe(t, "ro.bin", data, 256<<10, m)})
		if err != nil {
			t.Fatal(err)
		}
		makeReadOnly(t, dest)
		err = runner(q).RunJob(context.Background(), id)
		if !errors.Is(err, queue.ErrPaused) {
			t.Fatalf("RunJob: %v, want ErrPaused", err)
		}
		j, _ := q.Get(id)
		if j.State != queue.Paused || !strings.Contains(j.Error, "read-only") || !strings.Contains(j.Error, dest) {
			t.Errorf("job is %s with reason %q", j.State, j.Error)
		}
		if err := runner(q).Run(context.Background()); err != nil {
			t.Errorf("Run with only a paused job: %v", err)
		}
	})
}

// makeReadOnly makes dir refuse new files. Permission bits do not stop
// root, so as root the folder is made immutable instead.
func makeReadOnly(t *testing.T, dir string) {
	t.Helper()
	if os.Geteuid() != 0 {
		if err := os.Chmod(dir, 0o555); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Chmod(dir, 0o755) })
	} else {
		if out, err := exec.Command("chattr", "+i", dir).CombinedOutput(); err != nil {
			t.Skipf("cannot make a read-only folder as root here: chattr: %v %s", err, out)
		}
		t.Cleanup(func() { exec.Command("chattr", "-i", dir).Run() })
	}
	probe := filepath.Join(dir, "probe")
	if err := os.WriteFile(probe, nil, 0o644); err == nil {
		os.Remove(probe)
		t.Skip("this file system lets us write into a read-only folder")
	}
}

func TestRunStopsWhenPausedOrInterrupted(t *testing.T) {
	t.Parallel()
	data := testkit.Data(4 << 20)
	for _, tc := range []struct {
		name      string
		stop      func(q *queue.Queue, id int64, cancel context.CancelCauseFunc)
		wantErr   error
		wantState queue.State
	}{
		{"paused by the user", func(q *queue.Queue, id int64, _ context.CancelCauseFunc) { q.Pause(id, "") }, queue.ErrPaused, queue.Paused},
		// Ctrl-C, the window closing: paused, as a job of braid get is.
		{"interrupted", func(_ *queue.Queue, _ int64, cancel context.CancelCauseFunc) { cancel(nil) }, context.Canceled, queue.Paused},
		// The face stops the run for now (the schedule, a new limit).
		{"yielded", func(_ *queue.Queue, _ int64, cancel context.CancelCauseFunc) { cancel(ErrYield) }, context.Canceled, queue.Queued},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := mirrortest.New(t, data, mirrortest.Rate(1<<20))
			q := queuetest.Open(t, queue.Open, t.TempDir())
			id, err := q.Add(queue.NewJob{Source: "s.meta4", Dest: t.TempDir(), Doc: describe(t, "s.bin", data, 256<<10, m)})
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancelCause(context.Background())
			defer cancel(nil)
			res := make(chan error, 1)
			go func() { res <- runner(q).RunJob(ctx, id) }()
			// Stop once some pieces are recorded.
			testkit.WaitFor(t, "two pieces recorded", func() bool {
				b, _, _ := q.Pieces(id, "s.bin")
				return b != nil && b.Count() >= 2
			})
			stopped := time.Now()
			tc.stop(q, id, cancel)
			var err2 error
			select {
			case err2 = <-res:
			case <-time.After(10 * time.Second):
				t.Fatal("the runner did not stop within 10 s")
			}
			if !errors.Is(err2, tc.wantErr) {
				t.Errorf("RunJob: %v, want %v", err2, tc.wantErr)
			}
			t.Logf("stopped %v after the request", time.Since(stopped))
			j, _ := q.Get(id)
			if j.State != tc.wantState {
				t.Errorf("job is %s, want %s", j.State, tc.wantState)
			}
			if done, pieces, _, _ := j.Progress(); done < 2 || done == pieces {
				t.Errorf("progress kept: %d of %d pieces", done, pieces)
			}
			if _, err := os.Stat(filepath.Join(j.Dest, "s.bin.part")); err != nil {
				t.Errorf("the .part is gone: %v", err)
			}
		})
	}
}

// The crash test: a real child process downloads through the queue from
// slow mirrors and is killed with SIGKILL halfway; a second child on the
// same state folder finishes the file, fetching again at most what the
// journal had not recorded yet.
const helperEnv = "BRAID_QUEUE_TEST_HELPER"

// TestMain runs that child when helperEnv asks for it, and the tests
// otherwise; on Windows they run in a second process whose torrent seeders
// map no file (torrenttest.RerunWithClassicIO).
func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) == "run" {
		os.Exit(helperRun())
	}
	if code, rerun := torrenttest.RerunWithClassicIO(); rerun {
		os.Exit(code)
	}
	os.Exit(m.Run())
}

// helperRun is the child: `braid queue run` on BRAID_STATE.
func helperRun() int {
	q, err := queue.Open(os.Getenv("BRAID_STATE"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer q.Close()
	if err := runner(q).Run(context.Background()); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

func TestCrashResume(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts child processes and downloads for several seconds")
	}
	const size = 8 << 20
	data := testkit.Data(size)
	var ms []*mirrortest.Mirror
	for i := range 3 {
		ms = append(ms, mirrortest.New(t, data, mirrortest.Rate(512<<10), mirrortest.Addr(fmt.Sprintf("127.0.0.%d", i+2))))
	}
	state, dest := t.TempDir(), t.TempDir()
	q, err := queue.Open(state)
	if err != nil {
		t.Fatal(err)
	}
	id, err := q.Add(queue.NewJob{Source: "crash.meta4", Dest: dest, Doc: describe(t, "crash.bin", data, 256<<10, ms...)})
	if err != nil {
		t.Fatal(err)
	}
	q.Close()

	child := func() *exec.Cmd {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), helperEnv+"=run", "BRAID_STATE="+state)
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
		return cmd
	}

	// Watch the journal from outside, as another program would.
	db := queuetest.RawDB(t, filepath.Join(state, queue.DBName))
	recorded := func() int {
		var bits []byte
		var n int
		if err := db.QueryRow(`SELECT p.bits, p.count FROM pieces p JOIN files f ON f.id = p.file WHERE f.job = ?`, id).Scan(&bits, &n); err != nil {
			return -1
		}
		b, err := piece.UnmarshalBitfield(bits, n)
		if err != nil {
			return -1
		}
		return b.Count()
	}

	first := child()
	total := (piece.Layout{Size: size, Length: 256 << 10}).Count()
	if !testkit.Eventually(testkit.Patience, func() bool { return recorded() >= total/2 }) {
		t.Fatalf("half the file was not recorded in %s (%d of %d pieces)", testkit.Patience, recorded(), total)
	}
	if err := first.Process.Kill(); err != nil { // SIGKILL
		t.Fatal(err)
	}
	first.Wait()
	atKill, servedAtKill := recorded(), served(ms...)
	t.Logf("killed with %d of %d pieces recorded, %d bytes served", atKill, total, servedAtKill)
	if atKill >= total {
		t.Fatal("the download finished before the kill; the test tested nothing")
	}

	second := child()
	waited := make(chan error, 1)
	go func() { waited <- second.Wait() }()
	select {
	case err := <-waited:
		if err != nil {
			t.Fatalf("second run: %v", err)
		}
	case <-time.After(120 * time.Second):
		t.Fatal("second run did not finish in 120 s")
	}

	got, err := os.ReadFile(filepath.Join(dest, "crash.bin"))
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("file after the crash and resume: %d bytes, %v", len(got), err)
	}
	if _, err := os.Stat(filepath.Join(dest, "crash.bin.part")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("crash.bin.part is still there: %v", err)
	}
	q, err = queue.Open(state)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	if j, err := q.Get(id); err != nil || j.State != queue.Done {
		t.Errorf("job after the resume: %s %v", j.State, err)
	}
	all := served(ms...)
	t.Logf("mirrors served %d bytes for a file of %d (%.2f MiB again)", all, size, float64(all-size)/(1<<20))
	if limit := int64(size + 3<<20); all > limit {
		t.Errorf("mirrors served %d bytes in all, more than the file plus 3 MiB (%d)", all, limit)
	}
}
