//go:build !headless

package main

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"braid/engine/explain"
	"braid/engine/metalink"
	"braid/engine/mirrortest"
	"braid/engine/piece"
	"braid/internal/testkit"
	"braid/queue"
	"braid/runner"
	"braid/ui"
	"braid/ui/bridge"
)

// The four faces of Braid (braid get, braid queue run, the window, an
// aria2 client over JSON-RPC) run a
// download through one runner. These tests start the same download from
// each, interrupt it as each face's user does (Ctrl-C, closing the
// window), start it again, and check that every face leaves the same
// state after the interrupt, fetches only what was missing, and ends
// with the same file, outcome and queue record.

const (
	faceSize     = 4 << 20
	facePieceLen = 256 << 10
	facePieces   = faceSize / facePieceLen
)

// faceSource is the one source every face downloads: a .meta4 served
// over HTTP, for one file with a whole-file sha-256 and sha-256 piece
// hashes on two throttled loopback mirrors (so that an interrupt lands
// mid-download).
type faceSource struct {
	url    string // of the .meta4
	data   []byte
	m1, m2 *mirrortest.Mirror
}

func newFaceSource(t *testing.T) *faceSource { return newFaceSourceWith(t, 512<<10, nil) }

// newFaceSourceWith is a faceSource whose mirrors send rate bytes a second
// each (0: as fast as they can), its file's description changed by edit
// (nil: none) before the .meta4 is written.
func newFaceSourceWith(t *testing.T, rate int64, edit func(*metalink.File)) *faceSource {
	t.Helper()
	data := mirrortest.Bytes(faceSize, 22)
	m1 := mirrortest.New(t, data, mirrortest.Path("/pub/faces.bin"), mirrortest.Rate(rate))
	m2 := mirrortest.New(t, data, mirrortest.Addr("127.0.0.2"), mirrortest.Path("/pub/faces.bin"), mirrortest.Rate(rate))
	f, err := piece.Describe(context.Background(), bytes.NewReader(data), faceSize, "faces.bin", facePieceLen, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.URLs = []metalink.URL{{URL: m1.URL(), Priority: 1, Location: "DE"}, {URL: m2.URL(), Priority: 2, Location: "FR"}}
	if edit != nil {
		edit(&f)
	}
	var doc bytes.Buffer
	if err := metalink.Write(&doc, &metalink.Document{Version: 4, Files: []metalink.File{f}}); err != nil {
		t.Fatal(err)
	}
	meta := mirrortest.New(t, doc.Bytes(), mirrortest.Path("/faces.meta4"),
		mirrortest.Header("Content-Type", "application/metalink4+xml"))
	return &faceSource{url: meta.URL(), data: data, m1: m1, m2: m2}
}

// served is the file's bytes the mirrors have sent so far.
func (s *faceSource) served() int64 { return s.m1.BytesServed() + s.m2.BytesServed() }

// face is one way a user runs a download. start begins it (the first
// time: adds the source; after an interrupt: resumes it as that face's
// user would).
type face interface {
	name() string
	dirs() faceDirs
	start(t *testing.T, run int) faceRun
}

// faces are the four faces, each with its own state folder and
// destination, on src.
func faces(t *testing.T, src *faceSource) []face {
	d := func() faceDirs { return faceDirs{src: src, state: t.TempDir(), dest: t.TempDir()} }
	return []face{getFace{d()}, queueRunFace{d(), new(int64)}, windowFace{d(), new(ui.JobID)}, rpcFace{d(), new(string)}}
}

// faceRun is a download a face runs.
type faceRun struct {
	// stop interrupts it as the face's user does (Ctrl-C, closing the
	// window) and returns once it has stopped.
	stop func()
	// end waits for it to end by itself: ok is the face's success (exit
	// status 0; for the window, the job done), said the face's own words
	// meanwhile (its output; the window's rows).
	end func() (ok bool, said string)
}

// faceDirs are one face's state folder and destination.
type faceDirs struct {
	src         *faceSource
	state, dest string
}

func (d faceDirs) dirs() faceDirs { return d }

// runCommand runs cmd in a goroutine under a context of its own: stop is
// Ctrl-C (the context's end) and returns the exit status once the command
// has returned; wait waits for it to return by itself.
func runCommand(cmd func(ctx context.Context, out *lockedBuffer) int) (stop func() (int, string), wait func() (int, string)) {
	ctx, cancel := context.WithCancel(context.Background())
	var out lockedBuffer
	code := make(chan int, 1)
	go func() { code <- cmd(ctx, &out) }()
	stop = func() (int, string) {
		cancel()
		return <-code, out.String()
	}
	wait = func() (int, string) {
		defer cancel()
		return <-code, out.String()
	}
	return stop, wait
}

// getFace is `braid get`: the same command line both times; the second
// finds the paused job and resumes it.
type getFace struct{ faceDirs }

func (getFace) name() string { return "get" }

func (f getFace) start(t *testing.T, run int) faceRun {
	return commandRun(t, func(ctx context.Context, out *lockedBuffer) int {
		return cmdGet(ctx, []string{"--state", f.state, "-d", f.dest, f.src.url}, out, out)
	}, "exit 1", func(code int, _ string) bool { return code == 1 })
}

// commandRun is the faceRun of a command (runCommand): its stop is Ctrl-C,
// after which stopped must hold of the exit status and what the command
// said (else the test fails: the interrupted command did not say want);
// its end is an exit status of 0.
func commandRun(t *testing.T, cmd func(ctx context.Context, out *lockedBuffer) int, want string, stopped func(code int, out string) bool) faceRun {
	stop, wait := runCommand(cmd)
	return faceRun{
		stop: func() {
			if code, out := stop(); !stopped(code, out) {
				t.Errorf("the interrupted command (exit %d) did not say %s:\n%s", code, want, out)
			}
		},
		end: func() (bool, string) {
			code, out := wait()
			return code == 0, fmt.Sprintf("exit %d\n%s", code, out)
		},
	}
}

// queueRunOf is the faceRun of `braid queue run` on state; its user resumes
// job id first when id is not 0.
func queueRunOf(t *testing.T, state string, id int64) faceRun {
	if id != 0 {
		if code, out, errOut := runQueue(t, "--state", state, "resume", strconv.FormatInt(id, 10)); code != 0 {
			t.Fatalf("queue resume exited %d: %s%s", code, out, errOut)
		}
	}
	return commandRun(t, func(ctx context.Context, out *lockedBuffer) int {
		return cmdQueue(ctx, []string{"--state", state, "run"}, out, out)
	}, "its jobs are paused with their progress", func(_ int, out string) bool {
		return strings.Contains(out, "paused with their progress")
	})
}

// queueRunFace is `braid queue run`. The command line adds no job without
// running it, so the job is added as the window's picker adds one (the
// source read by runner.ResolveSource, stored by Add); after the
// interrupt its user resumes it with `braid queue resume ID` and runs the
// queue again.
type queueRunFace struct {
	faceDirs
	id *int64
}

func (queueRunFace) name() string { return "queue run" }

func (f queueRunFace) start(t *testing.T, run int) faceRun {
	if run == 0 {
		q, err := queue.Open(f.state)
		if err != nil {
			t.Fatal(err)
		}
		doc, origin, err := runner.ResolveSource(context.Background(), f.src.url, runner.ResolveOptions{})
		if err != nil {
			q.Close()
			t.Fatal(err)
		}
		*f.id, err = q.Add(queue.NewJob{Source: f.src.url, Dest: f.dest, Doc: doc, Origin: origin})
		q.Close()
		if err != nil {
			t.Fatal(err)
		}
		return queueRunOf(t, f.state, 0)
	}
	return queueRunOf(t, f.state, *f.id)
}

// windowFace is the window's bridge over the queue, as cmd/braid's window
// makes it: the picker's Open and Add the first time; closing the window
// is the interrupt; the next session (the queue opened again) resumes the
// paused job as its Resume button does. What the window says is what its
// rows showed, read from Active at about the window's rate.
type windowFace struct {
	faceDirs
	id *ui.JobID
}

func (windowFace) name() string { return "window" }

func (f windowFace) start(t *testing.T, run int) faceRun {
	q, b, fail := openFaceWindow(t, f.state)
	ctx := context.Background()
	if run == 0 {
		doc, err := b.Open(ctx, f.src.url)
		if err == nil {
			*f.id, err = b.Add(ctx, ui.AddRequest{Source: f.src.url, Doc: doc, Dir: f.dest})
		}
		if err != nil {
			fail(err)
		}
	} else if err := b.Resume(*f.id); err != nil {
		fail(err)
	}
	return watchWindow(t, q, b, *f.id, ui.Done)
}

// openFaceWindow opens the queue in state and the window's bridge over it,
// started, as cmd/braid's window makes them; fail closes both and fails
// the test with err.
func openFaceWindow(t *testing.T, state string) (q *queue.Queue, b *bridge.Backend, fail func(err error)) {
	q, err := queue.Open(state)
	if err != nil {
		t.Fatal(err)
	}
	b = bridge.New(q, nil)
	fail = func(err error) {
		b.Close()
		q.Close()
		t.Fatal(err)
	}
	if err := b.Start(false); err != nil {
		fail(err)
	}
	return q, b, fail
}

// watchWindow is the run of job id in the window's bridge b over q: it
// reads the rows the window shows (Active, at about the window's rate,
// and the list as the window reads it on a change), each change once;
// stop closes the window; end waits for the job's row to say done (or
// failed, or paused) and says what the rows showed.
func watchWindow(t *testing.T, q *queue.Queue, b *bridge.Backend, id ui.JobID, done ui.JobState) faceRun {
	var (
		mu    sync.Mutex
		shown []string
		live  bool // a row showed the job running with bytes done
	)
	quit, watched := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(watched)
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for n := 0; ; n++ {
			if n%10 == 0 {
				_, _ = b.Jobs() // read as Active is: a failed read shows nothing new
			}
			for _, j := range b.Active() {
				if j.ID != id {
					continue
				}
				line := j.State.String()
				if j.Err != "" {
					line += " (" + j.Err + ")"
				}
				mu.Lock()
				if len(shown) == 0 || shown[len(shown)-1] != line {
					shown = append(shown, line)
				}
				live = live || (j.State == ui.Running && j.Done > 0 && (j.Size < 0 || j.Done < j.Size))
				mu.Unlock()
			}
			select {
			case <-quit:
				return
			case <-tick.C:
			}
		}
	}()
	var once sync.Once
	closeAll := func() {
		once.Do(func() {
			close(quit)
			<-watched
			b.Close()
			q.Close()
		})
	}
	t.Cleanup(closeAll)
	return faceRun{
		stop: closeAll,
		end: func() (bool, string) {
			defer closeAll()
			var row ui.Job
			testkit.WaitWithin(t, 2*time.Minute, "the window's row to end", func() bool {
				jobs, err := b.Jobs()
				if err != nil {
					t.Fatal(err)
				}
				for _, j := range jobs {
					if j.ID == id {
						row = j
					}
				}
				return row.State == done || row.State == ui.Failed || row.State == ui.Paused
			})
			mu.Lock()
			defer mu.Unlock()
			said := fmt.Sprintf("rows shown: %s\nlast: %s %s %s", strings.Join(shown, ", "), row.State, row.Outcome, row.Err)
			if live {
				said += "\nshowed live progress"
			}
			return row.State == done, said
		},
	}
}

// rpcFace is an aria2 client over `braid queue run --rpc-listen`: it adds
// the source with aria2.addUri (into the face's folder), stopping is
// Ctrl-C of the queue run, and after it the client runs the queue again
// and asks aria2.unpause of the same GID. The run serves until told to
// stop, so the face's end watches aria2.tellStatus until the download
// ends (complete, error, or paused from elsewhere) and then stops it.
type rpcFace struct {
	faceDirs
	gid *string
}

func (rpcFace) name() string { return "rpc" }

// rpcFaceSecret is the faces' RPC secret (token:SECRET in each call).
const rpcFaceSecret = "faces-s3cret"

func (f rpcFace) start(t *testing.T, run int) faceRun {
	var out lockedBuffer
	ctx, cancel := context.WithCancel(context.Background())
	code := make(chan int, 1)
	go func() {
		code <- cmdQueue(ctx, []string{"--state", f.state, "run", "-d", f.dest,
			"--rpc-listen", "127.0.0.1:0", "--rpc-secret", rpcFaceSecret}, &out, &out)
	}()
	var once sync.Once
	exit := -1
	stop := func() (int, string) {
		once.Do(func() {
			cancel()
			exit = <-code
		})
		return exit, out.String()
	}
	t.Cleanup(func() { stop() })
	addr := regexp.MustCompile(`answering aria2 JSON-RPC on https?://\S*:(\d+)/jsonrpc`)
	var endpoint string
	if !testkit.Eventually(20*time.Second, func() bool {
		if m := addr.FindStringSubmatch(out.String()); m != nil {
			endpoint = "http://127.0.0.1:" + m[1] + "/jsonrpc"
		}
		return endpoint != ""
	}) {
		c, said := stop()
		t.Fatalf("queue run (exit %d) said no RPC address in 20 s:\n%s", c, said)
	}
	call := func(method string, params ...any) map[string]any {
		t.Helper()
		status, v := rpcCall(t, endpoint, method, append([]any{"token:" + rpcFaceSecret}, params...)...)
		if status != 200 || v["error"] != nil {
			c, said := stop()
			t.Fatalf("%s: HTTP %d, %v; queue run (exit %d) said:\n%s", method, status, v, c, said)
		}
		return v
	}
	if run == 0 {
		gid, _ := call("aria2.addUri", []string{f.src.url}, map[string]any{"dir": f.dest})["result"].(string)
		if gid == "" {
			stop()
			t.Fatal("aria2.addUri gave no GID")
		}
		*f.gid = gid
	} else {
		call("aria2.unpause", *f.gid)
	}
	return faceRun{
		stop: func() {
			c, said := stop()
			if !strings.Contains(said, "paused with their progress") {
				t.Errorf("the interrupted queue run (exit %d) does not say its jobs are paused with their progress:\n%s", c, said)
			}
		},
		end: func() (bool, string) {
			var status map[string]any
			for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(50 * time.Millisecond) {
				status, _ = call("aria2.tellStatus", *f.gid, []string{"status", "errorMessage"})["result"].(map[string]any)
				if s := status["status"]; s == "complete" || s == "error" || s == "paused" || s == "removed" {
					break
				}
				if time.Now().After(deadline) {
					c, said := stop()
					t.Fatalf("the download's status after two minutes: %v; queue run (exit %d) said:\n%s", status, c, said)
				}
			}
			c, said := stop()
			return status["status"] == "complete", fmt.Sprintf("status %v %v\nexit %d\n%s", status["status"], status["errorMessage"], c, said)
		},
	}
}

// dbPieces reads the state folder's database as another program would (a
// read-only connection, no part in who owns the queue): the pieces
// recorded done of its one file, and its job's state.
func dbPieces(t *testing.T, state string) (int, queue.State) {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+filepath.Join(state, queue.DBName)+"?mode=ro&_busy_timeout=1000")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var bits []byte
	var n int
	var st string
	err = db.QueryRow(`SELECT p.bits, p.count, j.state FROM pieces p
		JOIN files f ON f.id = p.file JOIN jobs j ON j.id = f.job`).Scan(&bits, &n, &st)
	if err != nil {
		return 0, ""
	}
	b, err := piece.UnmarshalBitfield(bits, n)
	if err != nil {
		return 0, ""
	}
	return b.Count(), queue.State(st)
}

// waitPieces waits until the state folder's job has n pieces recorded;
// after a minute it stops run and fails.
func waitPieces(t *testing.T, state string, n int, run faceRun) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		if got, _ := dbPieces(t, state); got >= n {
			return
		}
		if time.Now().After(deadline) {
			run.stop()
			t.Fatalf("no %d pieces recorded in a minute", n)
		}
	}
}

// theJob reads the state folder's one job, with its files and mirrors.
func theJob(t *testing.T, state string) queue.Job {
	t.Helper()
	q, err := queue.Open(state)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	list, err := q.List()
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 {
		t.Fatalf("the queue holds %d jobs, want 1", len(list))
	}
	j, err := q.Get(list[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	return j
}

// learnedSpeed is the speed the state folder's queue learnt for the host
// of mirror URL u.
func learnedSpeed(t *testing.T, state, u string) (float64, bool) {
	t.Helper()
	q, err := queue.Open(state)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	bps, ok, err := q.MirrorSpeed(queue.HostOf(u))
	if err != nil {
		t.Fatal(err)
	}
	return bps, ok
}

// faceRecord is what the queue keeps of a job that no face may differ
// in: everything but its ID, times, destination and document.
type faceRecord struct {
	Source, Error, Checked string
	State                  queue.State
	Mismatch, Waiting      bool
	Origin                 queue.Origin
	Files                  []faceFile
}

type faceFile struct {
	Name, VerifiedBy, SavedAs   string
	Size                        int64
	Selected, Verified, Created bool
	Mismatch                    bool
	Layout                      piece.Layout
	Hashes                      []metalink.Hash
	Pieces, Done                int
	DoneBytes                   int64
	Mirrors                     []queue.Mirror
	// Of the stored document: its piece hashes and published mirrors.
	PieceHashes   []string
	PublishedURLs []metalink.URL
}

func recordOf(j queue.Job) faceRecord {
	r := faceRecord{Source: j.Source, Error: j.Error, Checked: j.Checked(), State: j.State,
		Mismatch: j.Mismatch, Waiting: !j.NextTry.IsZero(), Origin: j.Origin}
	for _, f := range j.Files {
		ff := faceFile{Name: f.Name, VerifiedBy: f.VerifiedBy, SavedAs: f.SavedAs, Size: f.Size,
			Selected: f.Selected, Verified: f.Verified, Created: f.Created, Mismatch: f.Mismatch,
			Layout: f.Layout, Hashes: f.Hashes, Pieces: f.Pieces, Done: f.Done, DoneBytes: f.DoneBytes, Mirrors: f.Mirrors}
		if j.Doc != nil {
			for _, df := range j.Doc.Files {
				if df.Name == f.Name && df.Pieces != nil {
					ff.PieceHashes = append([]string{df.Pieces.Type}, df.Pieces.Hashes...)
					ff.PublishedURLs = df.URLs
				}
			}
		}
		r.Files = append(r.Files, ff)
	}
	return r
}

// paused is the record with the progress made before the interrupt
// taken out: that depends on when the interrupt came.
func (r faceRecord) paused() faceRecord {
	r.Files = append([]faceFile(nil), r.Files...)
	for i := range r.Files {
		r.Files[i].Done, r.Files[i].DoneBytes = 0, 0
	}
	return r
}

// TestFacesRunOneDownloadAlike starts one download from each face,
// interrupts it a quarter of the way or more, checks what the interrupt
// left (job paused with its pieces recorded, NAME.part on disk, no file
// at its name), starts it again and checks that the second run fetched
// only what was missing and that every face ends with the same bytes,
// the same outcome in its own words and the same queue record.
func TestFacesRunOneDownloadAlike(t *testing.T) {
	t.Parallel()
	src := newFaceSource(t)
	pausedRecords := map[string]faceRecord{}
	doneRecords := map[string]faceRecord{}
	var order []string
	for _, fc := range faces(t, src) {
		d := fc.dirs()
		order = append(order, fc.name())
		t.Run(fc.name(), func(t *testing.T) {
			final := filepath.Join(d.dest, "faces.bin")
			before := src.served()
			run := fc.start(t, 0)
			waitPieces(t, d.state, 4, run)
			run.stop()

			// What the interrupt left.
			j := theJob(t, d.state)
			f := j.Files[0]
			if j.State != queue.Paused || j.Error != "" || !j.NextTry.IsZero() {
				t.Errorf("after the interrupt the job is %s (error %q, next try %v), want paused by the user", j.State, j.Error, j.NextTry)
			}
			if f.Done < 4 || f.Done >= facePieces || f.DoneBytes != int64(f.Done)*facePieceLen || f.Verified {
				t.Errorf("after the interrupt the file has %d of %d pieces (%d bytes), verified %v", f.Done, facePieces, f.DoneBytes, f.Verified)
			}
			if fi, err := os.Stat(final + ".part"); err != nil || fi.Size() == 0 {
				t.Errorf("after the interrupt faces.bin.part: %v", err)
			}
			if _, err := os.Stat(final); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("after the interrupt faces.bin is at its final name: %v", err)
			}
			pausedRecords[fc.name()] = recordOf(j)
			first := src.served() - before
			kept := int64(f.Done) * facePieceLen

			// Again: only what was missing comes.
			mid := src.served()
			ok, said := fc.start(t, 1).end()
			if !ok {
				t.Fatalf("the second run did not end well:\n%s", said)
			}
			again := src.served() - mid
			t.Logf("%s: interrupted after %d bytes served with %d of %d pieces recorded; the second run fetched %d bytes (%.2f of the %d missing)",
				fc.name(), first, f.Done, facePieces, again, float64(again)/float64(faceSize-kept), faceSize-kept)
			if limit := faceSize - kept + 2*facePieceLen; again > limit {
				t.Errorf("the second run fetched %d bytes, more than the %d missing and two pieces (%d)", again, faceSize-kept, limit)
			}

			got, err := os.ReadFile(final)
			if err != nil || !bytes.Equal(got, src.data) {
				t.Fatalf("faces.bin after the second run: %d bytes, %v", len(got), err)
			}
			if _, err := os.Stat(final + ".part"); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("faces.bin.part is left: %v", err)
			}
			j = theJob(t, d.state)
			if j.State != queue.Done || j.Dest != d.dest {
				t.Errorf("the job is %s in %s, want done in %s", j.State, j.Dest, d.dest)
			}
			if f := j.Files[0]; !f.Verified || f.VerifiedBy != "sha-256" || f.SavedAs != "" || !f.Created || f.Done != facePieces {
				t.Errorf("the file's record %+v, want verified by sha-256 at its name, created, %d pieces", f, facePieces)
			}
			if c := j.Checked(); c != "verified (sha-256)" || !strings.Contains(said, c) {
				t.Errorf("the queue says %q; the face said:\n%s", c, said)
			}
			if fc.name() == "window" && !strings.Contains(said, "showed live progress") {
				t.Errorf("the window never showed the job running with bytes done:\n%s", said)
			}
			if len(j.Files[0].Mirrors) != 2 || j.Files[0].Mirrors[0].URL != src.m1.URL() || j.Files[0].Mirrors[1].URL != src.m2.URL() {
				t.Errorf("the job's mirrors %+v, want the two published", j.Files[0].Mirrors)
			}
			doneRecords[fc.name()] = recordOf(j)
			// Mirror learning holds whichever face ran the job.
			for _, m := range []*mirrortest.Mirror{src.m1, src.m2} {
				if bps, ok := learnedSpeed(t, d.state, m.URL()); !ok || bps <= 0 {
					t.Errorf("%s learnt no speed for %s (%.0f B/s, %v)", fc.name(), m.Host(), bps, ok)
				}
			}
		})
	}
	for _, name := range order[1:] {
		for what, recs := range map[string]map[string]faceRecord{"after the interrupt": pausedRecords, "done": doneRecords} {
			a, aok := recs[order[0]]
			b, bok := recs[name]
			if !aok || !bok {
				continue // that face failed already
			}
			if what == "after the interrupt" {
				a, b = a.paused(), b.paused()
			}
			if !reflect.DeepEqual(a, b) {
				t.Errorf("%s, the queue's record differs:\n%s: %+v\n%s: %+v", what, order[0], a, name, b)
			}
		}
	}
}

// dbJob reads the state folder's one job as another program would: its
// ID and its next try (zero: not waiting).
func dbJob(t *testing.T, state string) (int64, time.Time) {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+filepath.Join(state, queue.DBName)+"?mode=ro&_busy_timeout=1000")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var id, ms int64
	if err := db.QueryRow(`SELECT id, next_try FROM jobs`).Scan(&id, &ms); err != nil {
		return 0, time.Time{}
	}
	if ms == 0 {
		return id, time.Time{}
	}
	return id, time.UnixMilli(ms)
}

// TestFacesWaitForTheNetwork takes every mirror off the network in the
// middle of the download: whichever face runs the job, the queue records
// its next try (what `braid queue list` and a window read), the face says
// it waits for the network, and once the mirrors are back the job goes on
// and ends done with its next try cleared. Each face has mirrors of its
// own, so the three outages run side by side.
func TestFacesWaitForTheNetwork(t *testing.T) {
	t.Parallel()
	for i, named := range faces(t, nil) {
		t.Run(named.name(), func(t *testing.T) {
			t.Parallel()
			src := newFaceSource(t)
			fc := faces(t, src)[i]
			d := fc.dirs()
			run := fc.start(t, 0)
			waitPieces(t, d.state, 2, run)
			src.m1.Pause()
			src.m2.Pause()
			back := sync.OnceFunc(func() {
				src.m1.Resume()
				src.m2.Resume()
			})
			defer back()
			// The outage lasts until the queue shows the next try, and at
			// least 6 s: a log line every 5 s is enough for queue run.
			var next time.Time
			down := time.Now()
			for time.Since(down) < 6*time.Second || (next.IsZero() && time.Since(down) < 20*time.Second) {
				if _, n := dbJob(t, d.state); !n.IsZero() && next.IsZero() {
					next = n
					t.Logf("%s: the queue shows the next try %.1f s after the mirrors went", fc.name(), time.Since(down).Seconds())
				}
				time.Sleep(50 * time.Millisecond)
			}
			back()
			ok, said := run.end()
			if !ok {
				t.Fatalf("the download did not end well after the outage:\n%s", said)
			}
			if next.IsZero() {
				t.Errorf("in 20 s without mirrors the queue never recorded a next try for the job")
			}
			// The command lines say so in words; the window's row shows
			// the Waiting state with the mirrors' reason.
			want := "waiting for the network"
			if fc.name() == "window" {
				want = ui.Waiting.String() + " ("
			}
			if !strings.Contains(said, want) {
				t.Errorf("the face never said it waits for the network (%q):\n%s", want, said)
			}
			j := theJob(t, d.state)
			if j.State != queue.Done || !j.NextTry.IsZero() || j.Checked() != "verified (sha-256 piece hashes)" {
				t.Errorf("after the outage the job is %s, next try %v, %q", j.State, j.NextTry, j.Checked())
			}
			if got, err := os.ReadFile(filepath.Join(d.dest, "faces.bin")); err != nil || !bytes.Equal(got, src.data) {
				t.Errorf("faces.bin after the outage: %d bytes, %v", len(got), err)
			}
		})
	}
}

// TestFacesStopWhenPausedElsewhere pauses the job from another braid
// command (`braid queue pause ID`) while a face downloads it: whichever
// face runs it, the download stops within a few seconds, and the job
// stays paused with its pieces, NAME.part on disk.
func TestFacesStopWhenPausedElsewhere(t *testing.T) {
	t.Parallel()
	src := newFaceSource(t)
	for _, fc := range faces(t, src) {
		d := fc.dirs()
		t.Run(fc.name(), func(t *testing.T) {
			run := fc.start(t, 0)
			waitPieces(t, d.state, 2, run)
			id, _ := dbJob(t, d.state)
			if code, out, errOut := runQueue(t, "--state", d.state, "pause", strconv.FormatInt(id, 10)); code != 0 {
				run.stop()
				t.Fatalf("queue pause exited %d: %s%s", code, out, errOut)
			}
			// The runner looks at the job's state once a second.
			time.Sleep(3 * time.Second)
			s1 := src.served()
			time.Sleep(2 * time.Second)
			later := src.served() - s1
			ok, said := run.end()
			if later > 0 {
				t.Errorf("3 s after the pause the mirrors still sent %d bytes in 2 s", later)
			}
			j := theJob(t, d.state)
			f := j.Files[0]
			if j.State != queue.Paused || f.Verified || f.Done < 2 {
				t.Errorf("after the pause elsewhere the job is %s with %d of %d pieces, verified %v (the face ended ok %v):\n%s",
					j.State, f.Done, facePieces, f.Verified, ok, said)
			}
			if _, err := os.Stat(filepath.Join(d.dest, "faces.bin.part")); err != nil {
				t.Errorf("after the pause elsewhere faces.bin.part: %v", err)
			}
		})
	}
}

// TestFacesFailAlike runs a download whose published whole-file hash is
// wrong (its piece hashes are right) from each face: every face fails it
// the same way, in the words the queue keeps, and the queue keeps the
// same record of the failure.
func TestFacesFailAlike(t *testing.T) {
	t.Parallel()
	src := newFaceSourceWith(t, 0, func(f *metalink.File) {
		// A whole-file hash alone, which the file does not match (sha-256
		// piece hashes would prove the file without it).
		f.Hashes = []metalink.Hash{{Type: "sha-256", Value: strings.Repeat("ab", 32)}}
		f.Pieces = nil
	})
	records := map[string]faceRecord{}
	var order []string
	for _, fc := range faces(t, src) {
		d := fc.dirs()
		order = append(order, fc.name())
		t.Run(fc.name(), func(t *testing.T) {
			ok, said := fc.start(t, 0).end()
			j := theJob(t, d.state)
			// The command line says the queue's words; the window says
			// them as the sentence of their kind (the text is behind
			// Details).
			want := j.Error
			if fc.name() == "window" {
				want = ui.Sentence(explain.OfText(j.Error))
			}
			if j.Error == "" || !strings.Contains(said, want) {
				t.Errorf("the queue says the job failed with %q; the face said:\n%s", j.Error, said)
			}
			if ok {
				t.Errorf("the face took a file that does not match its hash as a success")
			}
			if j.State != queue.Failed || !j.Mismatch || !j.Files[0].Mismatch || j.Files[0].Verified {
				t.Errorf("the job is %s, mismatch %v (file %v), verified %v; want failed with its file marked a mismatch",
					j.State, j.Mismatch, j.Files[0].Mismatch, j.Files[0].Verified)
			}
			if _, err := os.Stat(filepath.Join(d.dest, "faces.bin")); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("a file that does not match its hash is at its final name: %v", err)
			}
			records[fc.name()] = recordOf(j)
		})
	}
	for _, name := range order[1:] {
		a, aok := records[order[0]]
		b, bok := records[name]
		if aok && bok && !reflect.DeepEqual(a, b) {
			t.Errorf("the queue's records of the failure differ:\n%s: %+v\n%s: %+v", order[0], a, name, b)
		}
	}
}
