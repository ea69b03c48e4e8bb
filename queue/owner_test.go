package queue

import (
	"bufio"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"braid/queue/queuetest"
)

// ownerChildDir names the state folder the owner child opens; the child
// does nothing unless run by the tests below.
const ownerChildDir = "BRAID_QUEUE_OWNER_CHILD"

// TestOwnerChild is the child's side of TestCrashedOwnerTakenOver and
// TestLiveOwnerRespected: it opens the queue, starts job 1, says "owner"
// and waits to be killed (or for stdin to close).
func TestOwnerChild(t *testing.T) {
	t.Parallel()
	dir := os.Getenv(ownerChildDir)
	if dir == "" {
		t.Skip("run by TestCrashedOwnerTakenOver and TestLiveOwnerRespected")
	}
	q, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !q.Owner() {
		t.Fatal("the child does not own the queue")
	}
	if ok, err := q.Claim(1); !ok || err != nil {
		t.Fatalf("claim job 1: %v, %v", ok, err)
	}
	os.Stdout.WriteString("owner\n")
	_, _ = bufio.NewReader(os.Stdin).ReadString('\n') // until the parent kills us
	q.Close()
}

// startOwner starts a child process that owns the queue in dir with job 1
// running, and returns once it says so.
func startOwner(t *testing.T, dir string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestOwnerChild$", "-test.v")
	cmd.Env = append(os.Environ(), ownerChildDir+"="+dir)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = stdin.Close()
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	said := make(chan string, 1)
	go func() {
		var lines []string
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			lines = append(lines, sc.Text())
			if sc.Text() == "owner" {
				said <- "owner"
				break
			}
		}
		said <- strings.Join(lines, "\n")
		for sc.Scan() {
		}
	}()
	select {
	case s := <-said:
		if s != "owner" {
			t.Fatalf("the child did not take the queue:\n%s", s)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("the child did not take the queue in 60 s")
	}
	return cmd
}

// A Braid killed outright (a crash, kill -9, TerminateProcess, a power cut)
// must not keep the queue: the next Braid on the same state folder owns it
// at once and its running job is runnable again. On Linux the kernel drops
// the dead process's lock at once; Windows releases a dead process's
// LockFileEx locks "depending on available system resources", so there the
// queue asks the system whether the recorded owner still lives.
func TestCrashedOwnerTakenOver(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	q := queuetest.Open(t, Open, dir)
	id, err := q.Add(NewJob{Source: "src", Dest: t.TempDir(), Doc: queuetest.Doc(10, 0, "f")})
	if err != nil || id != 1 {
		t.Fatalf("add: %d, %v", id, err)
	}
	q.Close()

	child := startOwner(t, dir)
	if err := child.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = child.Wait()

	start := time.Now()
	q, err = Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	took := time.Since(start)
	if !q.Owner() {
		t.Fatalf("Open right after the owner was killed does not own the queue (%v)", took)
	}
	if took > 5*time.Second {
		t.Errorf("taking over from a killed owner took %v", took)
	}
	if s, err := q.StateOf(id); err != nil || s != Queued {
		t.Errorf("the killed owner's running job is %s, %v; want queued", s, err)
	}
}

// A live owner keeps the queue: a second Open shares it without owning it,
// and leaves its running job running.
func TestLiveOwnerRespected(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	q := queuetest.Open(t, Open, dir)
	if _, err := q.Add(NewJob{Source: "src", Dest: t.TempDir(), Doc: queuetest.Doc(10, 0, "f")}); err != nil {
		t.Fatal(err)
	}
	q.Close()

	startOwner(t, dir)
	q, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	if q.Owner() || q.TryOwn() {
		t.Fatal("a second Open owns the queue while its owner lives")
	}
	if s, err := q.StateOf(1); err != nil || s != Running {
		t.Errorf("the live owner's job is %s, %v; want running", s, err)
	}
}
