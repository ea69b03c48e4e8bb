package platform

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"syscall"
	"testing"
	"time"
)

// TestMain lets the test binary play a first Braid that dies: with
// BRAID_TEST_LISTEN set it listens on that path, says so, and waits to be killed.
func TestMain(m *testing.M) {
	if path := os.Getenv("BRAID_TEST_LISTEN"); path != "" {
		in, err := Listen(path)
		if err != nil {
			os.Stderr.WriteString(err.Error())
			os.Exit(3)
		}
		os.Stdout.WriteString("listening\n")
		_ = in.Serve(context.Background(), func(Handoff) error { return nil })
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func socketPath(t *testing.T) string {
	t.Helper()
	// Unix socket paths are limited to about 100 bytes; t.TempDir can be longer.
	dir, err := os.MkdirTemp("", "bsock")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return filepath.Join(dir, "run", "braid.sock")
}

func serve(t *testing.T, in *Instance, handle func(Handoff) error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- in.Serve(ctx, handle) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
}

func TestForwardReachesTheRunningInstance(t *testing.T) {
	path := socketPath(t)
	in, err := Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan Handoff, 1)
	serve(t, in, func(h Handoff) error { got <- h; return nil })

	want := Handoff{Args: []string{"ubuntu.meta4", "https://example.org/x.iso"}, Dir: "/home/u"}
	if err := Forward(context.Background(), path, want); err != nil {
		t.Fatalf("Forward: %v", err)
	}
	select {
	case h := <-got:
		if !reflect.DeepEqual(h, want) {
			t.Fatalf("handoff = %+v, want %+v", h, want)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the running instance never received the handoff")
	}

	if _, err := Listen(path); !errors.Is(err, ErrRunning) {
		t.Fatalf("second Listen: err = %v, want ErrRunning", err)
	}
}

func TestForwardReportsRefusal(t *testing.T) {
	path := socketPath(t)
	in, err := Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	serve(t, in, func(Handoff) error { return errors.New("queue is locked") })
	err = Forward(context.Background(), path, Handoff{Args: []string{"a.meta4"}})
	if err == nil || err.Error() != "the running braid refused: queue is locked" {
		t.Fatalf("err = %v", err)
	}
}

func TestForwardWithNobodyListening(t *testing.T) {
	if err := Forward(context.Background(), socketPath(t), Handoff{}); !errors.Is(err, ErrNotRunning) {
		t.Fatalf("err = %v, want ErrNotRunning", err)
	}
}

// A Braid killed with SIGKILL leaves its socket file behind; the next one
// must notice nobody answers and take over.
func TestListenReplacesStaleSocket(t *testing.T) {
	path := socketPath(t)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "BRAID_TEST_LISTEN="+path)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, len("listening\n"))
	if _, err := out.Read(buf); err != nil || string(buf) != "listening\n" {
		t.Fatalf("child did not listen: %q %v", buf, err)
	}
	if _, err := Listen(path); !errors.Is(err, ErrRunning) {
		t.Fatalf("Listen beside a live child: err = %v, want ErrRunning", err)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("the killed child should have left its socket: %v", err)
	}

	in, err := Listen(path)
	if err != nil {
		t.Fatalf("Listen over a stale socket: %v", err)
	}
	got := make(chan Handoff, 1)
	serve(t, in, func(h Handoff) error { got <- h; return nil })
	if err := Forward(context.Background(), path, Handoff{Args: []string{"x.meta4"}}); err != nil {
		t.Fatalf("Forward to the new instance: %v", err)
	}
	if h := <-got; len(h.Args) != 1 || h.Args[0] != "x.meta4" {
		t.Fatalf("handoff = %+v", h)
	}
}

func TestSocketFolderIsPrivate(t *testing.T) {
	path := socketPath(t)
	if err := os.MkdirAll(filepath.Dir(path), 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Dir(path), 0o777); err != nil {
		t.Fatal(err)
	}
	in, err := Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	fi, err := os.Stat(filepath.Dir(path))
	if err != nil {
		t.Fatal(err)
	}
	if perm := fi.Mode().Perm(); perm != 0o700 {
		t.Fatalf("socket folder mode = %o, want 700", perm)
	}
}
