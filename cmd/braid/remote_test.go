package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"braid/engine/mirrortest"
	"braid/internal/testkit"
	"braid/ui"
	"braid/ui/remote"
)

// remoteDaemon is a JSON-RPC daemon the window can drive: an aria2c, or
// `braid queue run --rpc-listen`, on a fixed loopback port so that a
// restart answers at the same address.
type remoteDaemon struct {
	endpoint, secret, dir string
	start, stop           func()
}

// aria2cDaemon runs aria2c --enable-rpc on a free port, saving in its own
// folder; the test is skipped without aria2c.
func aria2cDaemon(t *testing.T) *remoteDaemon {
	t.Helper()
	bin, err := exec.LookPath("aria2c")
	if err != nil {
		t.Skip("aria2c is not installed (Debian: aria2; under Wine a test binary finds only Windows programs): the remote window is not tried on aria2")
	}
	port := testkit.FreePort(t)
	d := &remoteDaemon{endpoint: fmt.Sprintf("http://127.0.0.1:%d/jsonrpc", port), secret: "s3cret-for-aria2c", dir: t.TempDir()}
	var cmd *exec.Cmd
	var cancel context.CancelFunc
	d.start = func() {
		var ctx context.Context
		ctx, cancel = context.WithCancel(context.Background())
		cmd = exec.CommandContext(ctx, bin, "--no-conf", "--enable-rpc", "--rpc-listen-port="+strconv.Itoa(port),
			"--rpc-secret="+d.secret, "--dir="+d.dir, "--quiet", "--disable-ipv6", "--auto-save-interval=0")
		cmd.Dir = d.dir
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		waitPort(t, port)
	}
	d.stop = func() {
		if cmd == nil {
			return
		}
		cancel()
		_ = cmd.Wait()
		cmd = nil
	}
	d.start()
	t.Cleanup(d.stop)
	return d
}

// braidDaemon runs `braid queue run --rpc-listen` in this process on a
// free port, with its secret from BRAID_RPC_SECRET.
func braidDaemon(t *testing.T) *remoteDaemon {
	t.Helper()
	t.Setenv("BRAID_RPC_SECRET", "rpc-s3cret")
	port := testkit.FreePort(t)
	state := t.TempDir()
	d := &remoteDaemon{endpoint: fmt.Sprintf("http://127.0.0.1:%d/jsonrpc", port), secret: "rpc-s3cret", dir: t.TempDir()}
	var done <-chan int
	d.start = func() {
		_, done, _, _ = startQueueRPC(t, state, d.dir, "--rpc-listen", "127.0.0.1:"+strconv.Itoa(port))
	}
	d.stop = func() {
		if done == nil {
			return
		}
		rpcCall(t, d.endpoint, "aria2.shutdown", "token:"+d.secret)
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			t.Fatal("queue run still serving 20 s after aria2.shutdown")
		}
		done = nil
	}
	d.start()
	t.Cleanup(d.stop)
	return d
}

// daemonPoll is how often a test asks a daemon over its JSON-RPC: a
// Braid daemon answers at most rpc.DefaultRate requests a second from all
// its clients (the window under test among them), and a test asking
// every few milliseconds used that up and read the 429s as "not yet"
// (TestRemoteSwarm's Trackers, under load).
const daemonPoll = 100 * time.Millisecond

// waitDaemon is testkit.WaitWithin asking every daemonPoll.
func waitDaemon(t *testing.T, limit time.Duration, what string, cond func() bool) {
	t.Helper()
	if !testkit.EventuallyEvery(limit, daemonPoll, cond) {
		t.Fatalf("timed out after %s waiting for %s", limit, what)
	}
}

func waitPort(t *testing.T, port int) {
	t.Helper()
	addr := "127.0.0.1:" + strconv.Itoa(port)
	testkit.WaitFor(t, "a daemon listening on "+addr, func() bool {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
		}
		return err == nil
	})
}

// remoteBackend is the window's backend over d, for the test's own calls.
func remoteBackend(t *testing.T, d *remoteDaemon) *remote.Backend {
	t.Helper()
	b, err := remote.New(d.endpoint, d.secret)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close() })
	return b
}

// findJob is the job with id in b's list, and whether it is there.
func findJob(t *testing.T, b *remote.Backend, id ui.JobID) (ui.Job, bool) {
	t.Helper()
	jobs, err := b.Jobs()
	if err != nil {
		t.Fatalf("Jobs: %v", err)
	}
	for _, j := range jobs {
		if j.ID == id {
			return j, true
		}
	}
	return ui.Job{}, false
}

// addLink adds a link the way the window does: Open, then Add.
func addLink(t *testing.T, b *remote.Backend, link string) ui.JobID {
	t.Helper()
	doc, err := b.Open(context.Background(), link)
	if err != nil {
		t.Fatalf("Open %s: %v", link, err)
	}
	id, err := b.Add(context.Background(), ui.AddRequest{Source: link, Doc: doc, Files: []string{doc.Files[0].Name}})
	if err != nil {
		t.Fatalf("Add %s: %v", link, err)
	}
	return id
}

// The window's backend over aria2's JSON-RPC drives an aria2c and a braid
// queue run alike: a link added finishes with its size and bytes; a
// throttled one pauses, resumes and is removed; a wrong secret and a
// stopped daemon are sentences, not empty lists; the restarted daemon is
// reached again on the next call, and the notifications say so. Not
// parallel: each daemon listens on a port found free a moment before.
func TestRemoteBackendDrivesDaemons(t *testing.T) {
	for _, tc := range []struct {
		name  string
		start func(*testing.T) *remoteDaemon
	}{{"aria2c", aria2cDaemon}, {"braid", braidDaemon}} {
		t.Run(tc.name, func(t *testing.T) {
			d := tc.start(t)
			b, err := remote.New(d.endpoint, d.secret)
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			if jobs, err := b.Jobs(); err != nil || len(jobs) != 0 {
				t.Fatalf("an empty daemon's Jobs: %v, %v", jobs, err)
			}

			data := testkit.Data(3 << 20)
			m := mirrortest.New(t, data, mirrortest.Path("/first.bin"))
			first := addLink(t, b, m.URL())
			waitDaemon(t, 30*time.Second, "the first link done", func() bool {
				j, _ := findJob(t, b, first)
				return j.State == ui.Done
			})
			j, _ := findJob(t, b, first)
			if j.Size != int64(len(data)) || j.Done != j.Size || j.Name != "first.bin" || j.Source != m.URL() {
				t.Errorf("done row: name %q, source %q, %d of %d bytes; want first.bin, %s, %d of %d", j.Name, j.Source, j.Done, j.Size, m.URL(), len(data), len(data))
			}
			if got, err := os.ReadFile(filepath.Join(d.dir, "first.bin")); err != nil || !bytes.Equal(got, data) {
				t.Errorf("first.bin in the daemon's folder: %v, right bytes %v", err, bytes.Equal(got, data))
			}
			det, err := b.Detail(first, false)
			if err != nil || len(det.Files) != 1 || det.Files[0].Name != "first.bin" || det.Files[0].Size != int64(len(data)) ||
				len(det.Files[0].Mirrors) != 1 || det.Files[0].Mirrors[0].URL != m.URL() {
				t.Errorf("Detail of the done link: %+v, %v", det, err)
			}

			// A local .meta4 is read here for the picker and uploaded.
			mdata := testkit.Data(1 << 20)
			mm := mirrortest.New(t, mdata, mirrortest.Path("/from-meta4.bin"))
			sum := sha256.Sum256(mdata)
			meta := filepath.Join(t.TempDir(), "one.meta4")
			if err := os.WriteFile(meta, []byte(`<?xml version="1.0" encoding="UTF-8"?>
<metalink xmlns="urn:ietf:params:xml:ns:metalink"><file name="from-meta4.bin"><size>`+strconv.Itoa(len(mdata))+`</size>
<hash type="sha-256">`+hex.EncodeToString(sum[:])+`</hash><url priority="1">`+mm.URL()+`</url></file></metalink>`), 0o644); err != nil {
				t.Fatal(err)
			}
			doc, err := b.Open(context.Background(), meta)
			if err != nil || len(doc.Files) != 1 || doc.Files[0].Size != int64(len(mdata)) {
				t.Fatalf("Open of a local .meta4: %+v, %v", doc, err)
			}
			fromMeta, err := b.Add(context.Background(), ui.AddRequest{Source: meta, Doc: doc, Files: []string{"from-meta4.bin"}})
			if err != nil {
				t.Fatalf("Add of the .meta4: %v", err)
			}
			waitDaemon(t, 30*time.Second, "the .meta4's file done", func() bool {
				j, _ := findJob(t, b, fromMeta)
				return j.State == ui.Done && j.Size == int64(len(mdata))
			})
			if got, err := os.ReadFile(filepath.Join(d.dir, "from-meta4.bin")); err != nil || !bytes.Equal(got, mdata) {
				t.Errorf("from-meta4.bin in the daemon's folder: %v, right bytes %v", err, bytes.Equal(got, mdata))
			}

			slow := mirrortest.New(t, testkit.Data(8<<20), mirrortest.Path("/slow.bin"), mirrortest.Rate(256<<10))
			second := addLink(t, b, slow.URL())
			waitDaemon(t, 20*time.Second, "the slow link downloading", func() bool {
				j, _ := findJob(t, b, second)
				return j.State == ui.Running && j.Done > 0
			})
			if err := b.Pause(second); err != nil {
				t.Fatalf("Pause: %v", err)
			}
			waitDaemon(t, 10*time.Second, "the slow link paused", func() bool {
				j, _ := findJob(t, b, second)
				return j.State == ui.Paused
			})
			time.Sleep(time.Second) // bytes in flight land
			before, _ := findJob(t, b, second)
			time.Sleep(1500 * time.Millisecond)
			if after, _ := findJob(t, b, second); after.Done != before.Done || after.State != ui.Paused {
				t.Errorf("paused, it went from %d to %d bytes (%v)", before.Done, after.Done, after.State)
			}
			if err := b.Resume(second); err != nil {
				t.Fatalf("Resume: %v", err)
			}
			waitDaemon(t, 20*time.Second, "the slow link downloading again", func() bool {
				j, _ := findJob(t, b, second)
				return j.State == ui.Running && j.Done > before.Done
			})
			if err := b.Remove(second); err != nil {
				t.Fatalf("Remove: %v", err)
			}
			if _, ok := findJob(t, b, second); ok {
				t.Error("the removed download is still listed")
			}
			if _, ok := findJob(t, b, first); !ok {
				t.Error("removing one download took the done one too")
			}

			// Two added paused; the second moved before the first.
			var paused []ui.JobID
			for _, name := range []string{"/a.bin", "/b.bin"} {
				pm := mirrortest.New(t, testkit.Data(64<<10), mirrortest.Path(name))
				doc, err := b.Open(context.Background(), pm.URL())
				if err != nil {
					t.Fatal(err)
				}
				id, err := b.Add(context.Background(), ui.AddRequest{Source: pm.URL(), Doc: doc, Paused: true})
				if err != nil {
					t.Fatalf("Add paused: %v", err)
				}
				paused = append(paused, id)
			}
			order := func() []ui.JobID {
				jobs, err := b.Jobs()
				if err != nil {
					t.Fatal(err)
				}
				var ids []ui.JobID
				for _, j := range jobs {
					if j.ID == paused[0] || j.ID == paused[1] {
						if j.State != ui.Paused {
							t.Errorf("%s added paused is %v", j.Name, j.State)
						}
						ids = append(ids, j.ID)
					}
				}
				return ids
			}
			if got := order(); len(got) != 2 || got[0] != paused[0] {
				t.Fatalf("paused downloads in the order %v, want %v", got, paused)
			}
			if err := b.Move(paused[1], 0); err != nil {
				t.Fatalf("Move: %v", err)
			}
			if got := order(); len(got) != 2 || got[0] != paused[1] {
				t.Errorf("after moving the second first: %v, want %v first", got, paused[1])
			}

			if err := b.Verify(first); err == nil || !strings.Contains(err.Error(), "cannot verify") {
				t.Errorf("Verify on a remote daemon: %v, want the sentence that it cannot", err)
			}
			s, err := b.Settings()
			if err != nil || s.Dir != d.dir {
				t.Errorf("Settings: %+v, %v; want the daemon's folder %s", s, err, d.dir)
			}
			s.SpeedLimit, s.MaxJobs = 300<<10, 2
			if err := b.SetSettings(s); err != nil {
				t.Errorf("SetSettings: %v", err)
			}
			if s2, err := b.Settings(); err != nil || s2.SpeedLimit != 300<<10 || s2.MaxJobs != 2 {
				t.Errorf("after SetSettings: limit %d, %d at once, %v; want 307200, 2", s2.SpeedLimit, s2.MaxJobs, err)
			}

			wrong, err := remote.New(d.endpoint, "not-"+d.secret)
			if err != nil {
				t.Fatal(err)
			}
			defer wrong.Close()
			if jobs, err := wrong.Jobs(); !errors.Is(err, remote.ErrSecret) || jobs != nil {
				t.Errorf("a wrong secret's Jobs: %v, %v; want %q", jobs, err, remote.ErrSecret)
			} else if strings.Contains(err.Error(), d.secret) {
				t.Errorf("the error holds the secret: %v", err)
			}

			// A download running when the daemon goes keeps its row,
			// with no speed or time left: nothing is known of it then.
			going := mirrortest.New(t, testkit.Data(16<<20), mirrortest.Path("/going.bin"), mirrortest.Rate(256<<10))
			running := addLink(t, b, going.URL())
			waitDaemon(t, 20*time.Second, "the last link downloading", func() bool {
				j, _ := findJob(t, b, running)
				return j.State == ui.Running && j.Speed > 0
			})
			drain(b.Changes())
			d.stop()
			jobs, err := b.Jobs()
			if len(jobs) < 4 {
				t.Errorf("a stopped daemon's Jobs lists %d downloads, want the 4 it last had", len(jobs))
			}
			for _, j := range jobs {
				if j.State != ui.Unknown || j.Speed != 0 || j.ETA != -1 || j.Upload != 0 {
					t.Errorf("%s while the daemon is gone: %v at %.0f B/s, ETA %v; want Unknown, none", j.Name, j.State, j.Speed, j.ETA)
				}
			}
			if det, derr := b.Detail(running, false); derr != nil || det.State != ui.Unknown || det.Speed != 0 {
				t.Errorf("the running one's detail while the daemon is gone: %v at %.0f B/s, %v", det.State, det.Speed, derr)
			}
			var un *remote.Unreachable
			want := "Cannot reach the downloads at " + d.endpoint + ": nothing answers there."
			if !errors.As(err, &un) || err.Error() != want {
				t.Errorf("a stopped daemon's Jobs: %v, want %q", err, want)
			}
			if got, _ := ui.Explain(err.Error()); got != want {
				t.Errorf("the window would say %q, want %q", got, want)
			}
			select {
			case <-b.Changes():
			case <-time.After(5 * time.Second):
				t.Error("no change signalled when the daemon went away")
			}
			d.start()
			if jobs, err := b.Jobs(); err != nil {
				t.Errorf("the restarted daemon's Jobs: %v", err)
			} else if slices.ContainsFunc(jobs, func(j ui.Job) bool { return j.State == ui.Unknown }) {
				t.Errorf("the restarted daemon's Jobs still has unknown rows: %+v", jobs)
			}
			select {
			case <-b.Changes():
			case <-time.After(10 * time.Second):
				t.Error("no change signalled when the daemon came back")
			}
		})
	}
}

func drain(c <-chan struct{}) {
	for {
		select {
		case <-c:
		default:
			return
		}
	}
}
