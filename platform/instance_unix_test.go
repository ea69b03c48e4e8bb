//go:build unix

package platform

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// Another user cannot reach the socket: run a real process as "nobody" and
// let it try. Needs root to switch users.
func TestOtherUserCannotConnect(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to start a process as another user")
	}
	perl, err := exec.LookPath("perl")
	if err != nil {
		t.Skip("needs perl to play the other user's client")
	}
	path := socketPath(t)
	in, err := Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	handled := make(chan Handoff, 1)
	serve(t, in, func(h Handoff) (Answer, error) { handled <- h; return Answer{}, nil })
	// The folder above the socket folder must be enterable for the test to
	// show that the socket folder itself is what stops the other user.
	if err := os.Chmod(filepath.Dir(filepath.Dir(path)), 0o755); err != nil {
		t.Fatal(err)
	}
	script := `use Socket;
socket(my $s, PF_UNIX, SOCK_STREAM, 0) or die "socket: $!";
connect($s, sockaddr_un($ARGV[0])) or do { print "refused: $!\n"; exit 7 };
syswrite($s, "{\"args\":[\"evil\"]}\n"); sysread($s, my $answer, 100); print $answer;`
	cmd := exec.Command(perl, "-e", script, path)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 7 {
		t.Fatalf("the other user's client was not refused: %v: %s", err, out)
	}
	select {
	case h := <-handled:
		t.Fatalf("a handoff from another user was accepted: %+v", h)
	default:
	}
}

// The socket's folder is made this user's alone (Windows: the pipe's
// access list, TestPipeIsThisUsersAlone).
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

// Secrets go to no socket whose folder other users may enter.
func TestForwardLinkRefusesOpenFolder(t *testing.T) {
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
