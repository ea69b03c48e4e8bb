//go:build !headless

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"braid/engine/metalink"
	"braid/engine/mirrortest"
	"braid/internal/testkit"
	"braid/platform"
)

// TestSingleInstance runs real braid processes in real windows on their
// own Xvfb display: a later `braid FILE` hands FILE to the running one,
// which queues it, and a socket left by a Braid killed with SIGKILL is
// replaced by the next one.
func TestSingleInstance(t *testing.T) {
	if runtime.GOOS == "windows" {
		// The pipe's hand-over between two processes, and a killed
		// listener's successor, are platform's
		// TestForwardToAnotherProcessAndAfterItDied under Wine.
		t.Skip("runs real windows on Xvfb and finds the socket by its file; a test binary under Wine can start neither Xvfb nor see a pipe as a file")
	}
	_, bin, display := realWindow(t)

	data := bytes.Repeat([]byte("braid single instance\n"), 4096)
	mirror := mirrortest.New(t, data, mirrortest.Addr("127.0.0.6"), mirrortest.Path("/pub/handed.bin"))
	meta := func(dir, name string) string {
		return writeMetalink(t, dir, name+".meta4", data, name+".bin", 16<<10,
			[]metalink.URL{{URL: mirror.URL(), Priority: 1, Location: "DE"}})
	}

	t.Run("second hands its file to the first", func(t *testing.T) {
		b := newBraids(t, bin, display)
		first := b.startWindow(t, "--state", b.state)
		b.waitAnswering(t, first)
		sockBefore := b.socketInode(t)

		doc := meta(t.TempDir(), "handed")
		// The second gets a state folder of its own that does not exist:
		// had it opened a window and a queue, the folder would be there.
		ownState := filepath.Join(b.root, "second-state")
		elapsed := b.handOff(t, first, "--state", ownState, doc)
		t.Logf("the second braid exited after %v", elapsed)
		if _, err := os.Stat(ownState); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("the second braid opened a queue of its own in %s (stat: %v)", ownState, err)
		}
		if got := b.socketInode(t); !os.SameFile(got, sockBefore) {
			t.Errorf("the socket was replaced during the handoff")
		}
		b.waitQueued(t, first, doc)

		// The first quits cleanly on SIGTERM and takes its socket along.
		first.stop(t)
		if _, err := os.Lstat(b.sock); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("socket %s still there after a clean exit (stat: %v)", b.sock, err)
		}
	})

	t.Run("a killed first leaves its socket, the next replaces it", func(t *testing.T) {
		b := newBraids(t, bin, display)
		dead := b.startWindow(t, "--state", b.state)
		b.waitAnswering(t, dead)
		dead.kill(t)
		if _, err := os.Lstat(b.sock); err != nil {
			t.Fatalf("the killed braid left no socket behind, so nothing stale is tested: %v", err)
		}
		if c, err := net.Dial("unix", b.sock); err == nil {
			c.Close()
			t.Fatal("the stale socket still answers after SIGKILL")
		}

		next := b.startWindow(t, "--state", b.state)
		b.waitAnswering(t, next)
		doc := meta(t.TempDir(), "after-crash")
		elapsed := b.handOff(t, next, doc)
		t.Logf("the third braid exited after %v", elapsed)
		b.waitQueued(t, next, doc)
		next.stop(t)
	})
}

// braids is one user's world for the single-instance test: a home, a
// private runtime folder holding the socket, and a queue folder.
type braids struct {
	bin, display string
	root         string // short: a unix socket path must fit in about 100 bytes
	home, state  string
	sock         string
}

func newBraids(t *testing.T, bin, display string) *braids {
	t.Helper()
	root := testkit.ShortDir(t, "bri") // a Unix socket's path must be short
	b := &braids{bin: bin, display: display, root: root,
		home: filepath.Join(root, "home"), state: filepath.Join(root, "state")}
	for _, d := range []string{b.home, filepath.Join(root, "run")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	b.sock = filepath.Join(root, "run", "braid", "braid.sock")
	return b
}

// env is the environment of every braid of this user; extra comes last
// and wins.
func (b *braids) env(extra ...string) []string {
	env := append(os.Environ(),
		"DISPLAY="+b.display,
		"HOME="+b.home,
		"XDG_CONFIG_HOME="+filepath.Join(b.home, ".config"),
		"XDG_RUNTIME_DIR="+filepath.Join(b.root, "run"),
		"DBUS_SESSION_BUS_ADDRESS=",
		"BRAID_STATE=",
		"BRAID_AUTOADD=",
		"BRAID_SCREENSHOT=",
		"FYNE_SCALE=1",
	)
	return append(env, extra...)
}

// window is a running braid window process.
type window struct {
	cmd  *exec.Cmd
	out  *syncBuffer
	done chan struct{}
	err  error // Wait's result, once done is closed
}

// startWindow starts `braid args...` as the user's window, adding what it
// is handed with the picker's defaults (BRAID_AUTOADD=1). It is killed
// when the test ends, if still running.
func (b *braids) startWindow(t *testing.T, args ...string) *window {
	t.Helper()
	cmd := exec.Command(b.bin, args...)
	cmd.Env = b.env("BRAID_AUTOADD=1")
	w := &window{cmd: cmd, out: &syncBuffer{}, done: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = w.out, w.out
	if err := cmd.Start(); err != nil {
		t.Fatalf("start braid: %v", err)
	}
	go func() {
		w.err = cmd.Wait()
		close(w.done)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-w.done
	})
	return w
}

// waitAnswering waits until the user's socket accepts a connection, failing
// if w exits first.
func (b *braids) waitAnswering(t *testing.T, w *window) {
	t.Helper()
	deadline := time.NewTimer(30 * time.Second)
	defer deadline.Stop()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		if c, err := net.Dial("unix", b.sock); err == nil {
			c.Close()
			return
		}
		select {
		case <-w.done:
			t.Fatalf("braid exited before listening: %v\n%s", w.err, w.out)
		case <-deadline.C:
			t.Fatalf("braid does not answer on %s after 30s\n%s", b.sock, w.out)
		case <-tick.C:
		}
	}
}

// socketInode identifies the socket file now at b.sock.
func (b *braids) socketInode(t *testing.T) os.FileInfo {
	t.Helper()
	fi, err := os.Lstat(b.sock)
	if err != nil {
		t.Fatalf("socket: %v", err)
	}
	return fi
}

// handOff runs `braid args...` as a later start, which must hand its
// sources to the running window and exit 0 with nothing to say; it returns
// how long that took.
func (b *braids) handOff(t *testing.T, running *window, args ...string) time.Duration {
	t.Helper()
	// A braid that wrongly opened a window of its own would never exit.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, b.bin, args...)
	cmd.Env = b.env()
	start := time.Now()
	out, err := cmd.CombinedOutput()
	elapsed := time.Since(start)
	if ctx.Err() != nil {
		t.Fatalf("the later braid did not exit within a minute: it opened a window of its own?\n%s", out)
	}
	if err != nil {
		t.Fatalf("the later braid: %v\n%s\nthe running one said:\n%s", err, out, running.out)
	}
	if len(out) != 0 {
		t.Errorf("the later braid printed %q, want nothing", out)
	}
	return elapsed
}

// waitQueued waits until the queue in b.state has a job for source, which
// the running window w added after a handoff, and checks the job.
func (b *braids) waitQueued(t *testing.T, w *window, source string) {
	t.Helper()
	deadline := time.NewTimer(30 * time.Second)
	defer deadline.Stop()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	var last string
	for {
		var out, errs bytes.Buffer
		if code := cmdQueue(context.Background(), []string{"--state", b.state, "list", "--json"}, &out, &errs); code != 0 {
			t.Fatalf("braid queue list: exit %d: %s", code, errs.String())
		}
		var jobs []queueJob
		if err := json.Unmarshal(out.Bytes(), &jobs); err != nil {
			t.Fatalf("braid queue list --json: %v\n%s", err, out.String())
		}
		for _, j := range jobs {
			if j.Source != source {
				continue
			}
			if len(j.Files) != 1 || !strings.HasSuffix(j.Files[0], ".bin") {
				t.Errorf("job %d selects %q, want the document's one file", j.ID, j.Files)
			}
			if len(jobs) != 1 {
				t.Errorf("queue has %d jobs, want only the handed-over one: %+v", len(jobs), jobs)
			}
			return
		}
		last = out.String()
		select {
		case <-w.done:
			t.Fatalf("the running braid exited before queueing %s: %v\n%s", source, w.err, w.out)
		case <-deadline.C:
			t.Fatalf("%s not queued after 30s; queue:\n%s\nthe running braid said:\n%s", source, last, w.out)
		case <-tick.C:
		}
	}
}

// stop ends w with SIGTERM, as a session logout would, and wants exit 0.
func (w *window) stop(t *testing.T) {
	t.Helper()
	if err := w.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatalf("SIGTERM: %v", err)
	}
	select {
	case <-w.done:
		if w.err != nil {
			t.Errorf("braid after SIGTERM: %v\n%s", w.err, w.out)
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("braid still running 30s after SIGTERM\n%s", w.out)
	}
}

// kill ends w with SIGKILL, a crash: nothing of braid's runs after it.
func (w *window) kill(t *testing.T) {
	t.Helper()
	if err := w.cmd.Process.Kill(); err != nil {
		t.Fatalf("SIGKILL: %v", err)
	}
	<-w.done
}

// A second start hands its sources to the running Braid, or says in a
// sentence why it could not and gives up within handoverTimeout: a Braid
// that refuses, one that listens but never answers (hung). Beside one
// that takes no sources (braid queue run) it goes on by itself, and with
// nobody running it becomes the running one.
func TestHandOver(t *testing.T) {
	dir := testkit.ShortDir(t, "bho") // Unix socket paths are short
	n := 0
	sock := func() string {
		n++
		sub := filepath.Join(dir, fmt.Sprint(n))
		return platform.SocketPath(func(k string) string {
			if k == "XDG_RUNTIME_DIR" {
				return sub
			}
			return ""
		})
	}
	running := func(t *testing.T, path string, handle func(platform.Handoff) (platform.Answer, error)) *platform.Instance {
		t.Helper()
		in, err := platform.Listen(path)
		if err != nil {
			t.Fatal(err)
		}
		if handle == nil {
			t.Cleanup(func() { in.Close() })
			return in // listens, never answers
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { defer close(done); _ = in.Serve(ctx, handle) }()
		t.Cleanup(func() { cancel(); <-done })
		return in
	}
	old := handoverTimeout
	handoverTimeout = 2 * time.Second
	t.Cleanup(func() { handoverTimeout = old })

	t.Run("handed", func(t *testing.T) {
		path := sock()
		got := make(chan platform.Handoff, 1)
		running(t, path, func(h platform.Handoff) (platform.Answer, error) { got <- h; return platform.Answer{}, nil })
		inst, handed, err := handOver(context.Background(), path, []string{"https://example.org/a.iso"}, "/home/u")
		if inst != nil || !handed || err != nil {
			t.Fatalf("inst %v, handed %v, err %v", inst, handed, err)
		}
		if h := <-got; len(h.Args) != 1 || h.Args[0] != "https://example.org/a.iso" || h.Dir != "/home/u" {
			t.Errorf("the running Braid got %+v", h)
		}
	})
	t.Run("refused", func(t *testing.T) {
		path := sock()
		running(t, path, func(platform.Handoff) (platform.Answer, error) {
			return platform.Answer{}, errors.New("the queue is locked")
		})
		inst, handed, err := handOver(context.Background(), path, []string{"a.meta4"}, "/")
		if inst != nil || handed || err == nil || !strings.HasPrefix(err.Error(), "the open Braid did not take a.meta4") || !strings.Contains(err.Error(), "the queue is locked") {
			t.Fatalf("inst %v, handed %v, err %v", inst, handed, err)
		}
	})
	t.Run("hung", func(t *testing.T) {
		path := sock()
		running(t, path, nil)
		start := time.Now()
		inst, handed, err := handOver(context.Background(), path, []string{"a.meta4", "b.torrent"}, "/")
		if inst != nil || handed || err == nil || !strings.HasPrefix(err.Error(), "the open Braid does not answer, so the 2 sources did not reach it") {
			t.Fatalf("inst %v, handed %v, err %v", inst, handed, err)
		}
		// The dial waits up to 5 s for a busy pipe on Windows, within the
		// time the hand-over is given.
		if d := time.Since(start); d > handoverTimeout+6*time.Second {
			t.Errorf("the second start gave up after %s", d)
		}
	})
	t.Run("beside queue run", func(t *testing.T) {
		path := sock()
		running(t, path, func(platform.Handoff) (platform.Answer, error) {
			return platform.Answer{}, fmt.Errorf("%w: braid queue run takes no sources", platform.ErrElsewhere)
		})
		inst, handed, err := handOver(context.Background(), path, []string{"a.meta4"}, "/")
		if inst != nil || handed || err != nil {
			t.Fatalf("inst %v, handed %v, err %v: want the window to open beside it", inst, handed, err)
		}
	})
	t.Run("first", func(t *testing.T) {
		inst, handed, err := handOver(context.Background(), sock(), nil, "/")
		if inst == nil || handed || err != nil {
			t.Fatalf("inst %v, handed %v, err %v", inst, handed, err)
		}
		inst.Close()
	})
}
