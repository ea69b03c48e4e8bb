package platform

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
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
		_ = in.Serve(context.Background(), func(Handoff) (Answer, error) { return Answer{}, nil })
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

func serve(t *testing.T, in *Instance, handle func(Handoff) (Answer, error)) {
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
	serve(t, in, func(h Handoff) (Answer, error) { got <- h; return Answer{}, nil })

	want := Handoff{Args: []string{"ubuntu.meta4", "https://example.org/x.iso"}, Dir: "/home/u"}
	if _, err := Forward(context.Background(), path, want); err != nil {
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
	serve(t, in, func(Handoff) (Answer, error) { return Answer{}, errors.New("queue is locked") })
	_, err = Forward(context.Background(), path, Handoff{Args: []string{"a.meta4"}})
	if err == nil || err.Error() != "the running braid refused: queue is locked" || !errors.Is(err, ErrRefused) {
		t.Fatalf("err = %v", err)
	}
}

func TestForwardWithNobodyListening(t *testing.T) {
	if _, err := Forward(context.Background(), socketPath(t), Handoff{}); !errors.Is(err, ErrNotRunning) {
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
	serve(t, in, func(h Handoff) (Answer, error) { got <- h; return Answer{}, nil })
	if _, err := Forward(context.Background(), path, Handoff{Args: []string{"x.meta4"}}); err != nil {
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

// A link from the browser reaches the running Braid with its cookies, and
// its answer (the job, the file's name, a note) comes back; a running
// Braid that is not the one for it says so apart from a refusal.
func TestForwardLinkAndAnswer(t *testing.T) {
	path := socketPath(t)
	in, err := Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan Handoff, 1)
	serve(t, in, func(h Handoff) (Answer, error) {
		switch {
		case h.Add == nil:
			return Answer{}, errors.New("no link")
		case h.Add.State != "/state":
			return Answer{}, fmt.Errorf("%w: it runs the queue of /other", ErrElsewhere)
		}
		got <- h
		return Answer{Job: 7, Name: "report.bin", Warning: "kept for this session"}, nil
	})
	link := &Link{URL: "https://example.org/report.bin", Referrer: "https://example.org/page", UserAgent: "Test/1",
		Cookies: []Cookie{{Name: "session", Value: "s3cr3t", Path: "/", Secure: true}}, Dir: "/dl", State: "/state"}
	a, err := Forward(context.Background(), path, Handoff{Add: link})
	if err != nil {
		t.Fatal(err)
	}
	if a != (Answer{Job: 7, Name: "report.bin", Warning: "kept for this session"}) {
		t.Errorf("answer %+v", a)
	}
	if h := <-got; !reflect.DeepEqual(h.Add, link) {
		t.Errorf("the running Braid got %+v, want %+v", *h.Add, *link)
	}

	other := *link
	other.State = "/elsewhere"
	_, err = Forward(context.Background(), path, Handoff{Add: &other})
	if !errors.Is(err, ErrElsewhere) || errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "/other") {
		t.Errorf("a link for another queue: err = %v, want ErrElsewhere", err)
	}
	_, err = Forward(context.Background(), path, Handoff{Wake: true})
	if !errors.Is(err, ErrRefused) || errors.Is(err, ErrElsewhere) {
		t.Errorf("a refusal: err = %v, want ErrRefused", err)
	}
}

// A Link never prints its cookies' values, however it is formatted.
func TestLinkHidesCookies(t *testing.T) {
	l := Link{URL: "https://example.org/f", Cookies: []Cookie{{Name: "session", Value: "s3cr3t"}}}
	for _, s := range []string{fmt.Sprint(l), fmt.Sprintf("%+v", l), fmt.Sprintf("%#v", l), fmt.Sprintf("%v", &l), fmt.Sprintf("%+v", Handoff{Add: &l})} {
		if strings.Contains(s, "s3cr3t") {
			t.Errorf("%q shows the cookie", s)
		}
		if !strings.Contains(s, "session=…") {
			t.Errorf("%q does not name the cookie", s)
		}
	}
}

// Secrets go to no socket whose folder other users may enter.
func TestForwardLinkRefusesOpenFolder(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Windows keeps the socket in the user's profile, private by its access list")
	}
	path := socketPath(t)
	in, err := Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	handled := make(chan Handoff, 1)
	serve(t, in, func(h Handoff) (Answer, error) { handled <- h; return Answer{}, nil })
	if err := os.Chmod(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err = Forward(context.Background(), path, Handoff{Add: &Link{URL: "https://example.org/f", Cookies: []Cookie{{Name: "s", Value: "v"}}}})
	if err == nil || !strings.Contains(err.Error(), "open to other users") {
		t.Fatalf("err = %v, want the folder refused", err)
	}
	select {
	case h := <-handled:
		t.Fatalf("the link went through: %+v", h)
	default:
	}
}
