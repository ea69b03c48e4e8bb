package main

import (
	"bufio"
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"braid/engine/mirrortest"
	"braid/queue"
)

// TestGetInterruptPauses interrupts a real `braid get` as a user does, by
// each of the ways the system has (interrupts below: Ctrl-C and SIGTERM on
// Unix, the console's Ctrl-Break on Windows): the job is paused in the
// queue with its .part and recorded pieces kept, braid says how to go on
// and exits 1, and the same command then finishes the file.
func TestGetInterruptPauses(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs braid as a child process for several seconds")
	}
	bin := buildBraid(t)
	data := getData(1 << 20)
	m := mirrortest.New(t, data, mirrortest.Rate(192<<10))
	for _, in := range interrupts {
		t.Run(in.name, func(t *testing.T) {
			src, out, state := t.TempDir(), t.TempDir(), t.TempDir()
			meta := writeMeta4(t, src, "slow.bin", data, 64<<10, "", m.URL())
			cmd := exec.Command(bin, "get", "--state", state, "--json", "-d", out, meta)
			cmd.Env = withoutDisplay(os.Environ())
			in.prepare(cmd)
			lines, stderr := startGet(t, cmd)
			select {
			case <-lines: // the first progress line: the download runs
			case <-time.After(60 * time.Second):
				t.Fatalf("braid get showed no progress in 60 s; stderr:\n%s", stderr)
			}
			in.send(t, cmd)
			waited := make(chan error, 1)
			go func() { waited <- cmd.Wait() }()
			var err error
			select {
			case err = <-waited:
			case <-time.After(30 * time.Second):
				t.Fatalf("braid get still runs 30 s after %s", in.name)
			}
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != 1 {
				t.Fatalf("braid get after %s: %v, want exit status 1; stderr:\n%s", in.name, err, stderr)
			}

			q, err := queue.Open(state)
			if err != nil {
				t.Fatal(err)
			}
			jobs, err := q.List()
			q.Close()
			if err != nil || len(jobs) != 1 || jobs[0].State != queue.Paused {
				t.Fatalf("jobs after %s: %+v, %v; want one, paused", in.name, jobs, err)
			}
			if _, err := os.Stat(filepath.Join(out, "slow.bin.part")); err != nil {
				t.Errorf("the .part after %s: %v", in.name, err)
			}

			again := exec.Command(bin, "get", "--state", state, "-d", out, meta)
			again.Env = withoutDisplay(os.Environ())
			if b, err := again.CombinedOutput(); err != nil {
				t.Fatalf("the same get again: %v\n%s", err, b)
			}
			if got, err := os.ReadFile(filepath.Join(out, "slow.bin")); err != nil || !bytes.Equal(got, data) {
				t.Fatalf("slow.bin after the resume: %d bytes, %v", len(got), err)
			}
		})
	}
}

// interrupt is one way a user stops braid: prepare sets the child up
// before it starts, send interrupts it.
type interrupt struct {
	name    string
	prepare func(*exec.Cmd)
	send    func(*testing.T, *exec.Cmd)
}

// startGet starts cmd and returns a channel that gets each line it prints,
// and its standard error so far.
func startGet(t *testing.T, cmd *exec.Cmd) (<-chan string, *lockedBuffer) {
	t.Helper()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := &lockedBuffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	})
	lines := make(chan string, 1000)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			select {
			case lines <- sc.Text():
			default:
			}
		}
	}()
	return lines, stderr
}
