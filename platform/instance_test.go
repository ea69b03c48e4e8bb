package platform

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"braid/internal/testkit"
)

// TestMain lets the test binary play a first Braid in a process of its
// own, which a test may kill: with BRAID_TEST_LISTEN set it listens on that
// path, says so, and answers with childHandle until it is killed. With
// BRAID_TEST_ECHO set it prints its arguments and exits.
func TestMain(m *testing.M) {
	if os.Getenv("BRAID_TEST_ECHO") != "" {
		// A stand-in for braid behind a native host's launcher: it
		// prints its arguments, one a line.
		for _, a := range os.Args[1:] {
			os.Stdout.WriteString(a + "\n")
		}
		os.Exit(0)
	}
	if path := os.Getenv("BRAID_TEST_LISTEN"); path != "" {
		in, err := Listen(path)
		if err != nil {
			os.Stderr.WriteString(err.Error())
			os.Exit(3)
		}
		os.Stdout.WriteString("listening\n")
		_ = in.Serve(context.Background(), childHandle)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// childHandle is the answer of the listener in another process: it takes
// a link for the queue /state when its cookie arrived whole, says that a
// link for another queue is not for it, echoes sources, and refuses the
// rest.
func childHandle(h Handoff) (Answer, error) {
	switch {
	case h.Add != nil && h.Add.State != "/state":
		return Answer{}, fmt.Errorf("%w: it runs the queue of /state", ErrElsewhere)
	case h.Add != nil && len(h.Add.Cookies) == 1 && h.Add.Cookies[0].Value == "s3cr3t":
		return Answer{Job: 7, Name: h.Add.Filename, Warning: "kept for this session"}, nil
	case h.Add != nil:
		return Answer{}, errors.New("the cookie did not arrive")
	case len(h.Args) > 0:
		return Answer{Name: strings.Join(h.Args, "|") + " in " + h.Dir}, nil
	}
	return Answer{}, errors.New("queue is locked")
}

// startListener runs the test binary as a first Braid listening on path
// and waits until it listens.
func startListener(t *testing.T, path string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "BRAID_TEST_LISTEN="+path)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || line != "listening\n" {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		t.Fatalf("the child did not listen: %q %v: %s", line, err, stderr.String())
	}
	return cmd
}

// socketPath is a socket (a pipe on Windows) of the test's own, as
// SocketPath names it for a runtime folder of the test's own.
func socketPath(t *testing.T) string {
	t.Helper()
	dir := testkit.ShortDir(t, "bsock") // Unix socket paths are short
	return SocketPath(func(k string) string {
		if k == "XDG_RUNTIME_DIR" {
			return dir
		}
		return ""
	})
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

// A first Braid in another process answers a second one: sources, a
// refusal, a link with its cookie and the answer, a link for another
// queue. Killed (as a crash or a power cut does), it leaves nothing that
// stops the next Braid from listening at once: on Unix the socket file
// stays and is found dead, on Windows the pipe ends with its process.
func TestForwardToAnotherProcessAndAfterItDied(t *testing.T) {
	path := socketPath(t)
	child := startListener(t, path)
	if _, err := Listen(path); !errors.Is(err, ErrRunning) {
		t.Fatalf("Listen beside a live child: err = %v, want ErrRunning", err)
	}

	a, err := Forward(context.Background(), path, Handoff{Args: []string{"a.meta4", "magnet:?xt=urn:btih:00"}, Dir: "/home/u"})
	if err != nil || a.Name != "a.meta4|magnet:?xt=urn:btih:00 in /home/u" {
		t.Errorf("sources: answer %+v, err %v", a, err)
	}
	_, err = Forward(context.Background(), path, Handoff{Wake: true})
	if err == nil || err.Error() != "the running braid refused: queue is locked" || !errors.Is(err, ErrRefused) {
		t.Errorf("a refusal: err = %v", err)
	}
	link := &Link{URL: "https://example.org/report.bin", Filename: "report.bin", State: "/state",
		Cookies: []Cookie{{Name: "session", Value: "s3cr3t", Path: "/", Secure: true}}}
	a, err = Forward(context.Background(), path, Handoff{Add: link})
	if err != nil || a != (Answer{Job: 7, Name: "report.bin", Warning: "kept for this session"}) {
		t.Errorf("a link: answer %+v, err %v", a, err)
	}
	other := *link
	other.State = "/other"
	if _, err = Forward(context.Background(), path, Handoff{Add: &other}); !errors.Is(err, ErrElsewhere) || !strings.Contains(err.Error(), "/state") {
		t.Errorf("a link for another queue: err = %v, want ErrElsewhere", err)
	}

	if err := child.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = child.Wait()
	if runtime.GOOS != "windows" {
		if _, err := os.Stat(path); err != nil {
			t.Fatalf("the killed child should have left its socket: %v", err)
		}
	}
	if _, err := Forward(context.Background(), path, Handoff{Args: []string{"x.meta4"}}); !errors.Is(err, ErrNotRunning) {
		t.Fatalf("Forward to the killed child: err = %v, want ErrNotRunning", err)
	}

	start := time.Now()
	in, err := Listen(path)
	if err != nil {
		t.Fatalf("Listen after the first Braid died: %v", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("Listen after the first Braid died took %s", d)
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

// A Braid that listens but never answers (hung) costs a second start a
// few seconds, never more: Forward gives up with an error that is not
// ErrNotRunning, so the second start does not open a second window.
func TestForwardToABraidThatDoesNotAnswer(t *testing.T) {
	path := socketPath(t)
	in, err := Listen(path) // and never Serve
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	start := time.Now()
	_, err = Forward(ctx, path, Handoff{Args: []string{"a.meta4"}})
	if err == nil || errors.Is(err, ErrNotRunning) {
		t.Fatalf("err = %v, want a failed hand-over", err)
	}
	if d := time.Since(start); d > 8*time.Second {
		t.Errorf("Forward took %s to give up", d)
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
