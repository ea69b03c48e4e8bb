package queue

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"braid/queue/queuetest"

	"github.com/zalando/go-keyring"
)

// The tests in this file keep secrets in a real Secret Service: a private
// D-Bus session bus and GNOME Keyring's daemon, both started by the test,
// with a login keyring of their own under a temporary home. Each step runs
// in a child of the test binary, as a separate Braid process would (and
// because go-keyring's provider cannot be switched back after another test
// of this package put its in-memory one in place).

// keyringStep is the child's step; keyringDir its state folder.
const (
	keyringStep = "BRAID_TEST_KEYRING_STEP"
	keyringDir  = "BRAID_TEST_KEYRING_DIR"
	keyringJob  = "BRAID_TEST_KEYRING_JOB"
)

// sessionBus starts a private D-Bus session bus and, when withKeyring, a
// GNOME Keyring daemon serving the Secret Service on it, and returns the
// environment of a process that uses them.
func sessionBus(t *testing.T, withKeyring bool) []string {
	t.Helper()
	need := []string{"dbus-daemon"}
	if withKeyring {
		need = append(need, "gnome-keyring-daemon")
	}
	for _, p := range need {
		if _, err := exec.LookPath(p); err != nil {
			t.Skipf("%s is not installed (the setup step installs dbus-daemon and gnome-keyring): %v", p, err)
		}
	}
	home := t.TempDir()
	run := t.TempDir()
	env := append(os.Environ(), "HOME="+home, "XDG_DATA_HOME="+home+"/data", "XDG_RUNTIME_DIR="+run)
	bus := exec.Command("dbus-daemon", "--session", "--nofork", "--print-address=1", "--address=unix:path="+run+"/bus")
	bus.Env = env
	out, err := bus.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := bus.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = bus.Process.Kill(); _ = bus.Wait() })
	addr, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("dbus-daemon gave no address: %v", err)
	}
	env = append(env, "DBUS_SESSION_BUS_ADDRESS="+strings.TrimSpace(addr))
	if !withKeyring {
		return env
	}
	// --unlock reads the login keyring's password from stdin and creates
	// the keyring unlocked, as a desktop login does.
	kr := exec.Command("gnome-keyring-daemon", "--foreground", "--components=secrets", "--unlock")
	kr.Env = env
	kr.Stdin = strings.NewReader("login-password")
	if err := kr.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = kr.Process.Kill(); _ = kr.Wait() })
	return env
}

// keyringChild runs step in a child of the test binary with env, and
// returns its output.
func keyringChild(t *testing.T, env []string, step, dir, job string) string {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestKeyringChild$", "-test.v")
	cmd.Env = append(env, keyringStep+"="+step, keyringDir+"="+dir, keyringJob+"="+job)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("step %s: %v\n%s", step, err, out)
	}
	return string(out)
}

// TestKeyringChild is the child's side of the tests below; it does
// nothing unless run by them.
func TestKeyringChild(t *testing.T) {
	t.Parallel()
	step := os.Getenv(keyringStep)
	if step == "" {
		t.Skip("run by TestNetInSystemKeyring and TestNetWithoutSecretService")
	}
	dir := os.Getenv(keyringDir)
	q := queuetest.Open(t, Open, dir)
	switch step {
	case "add":
		// The Secret Service's daemon may still be registering its name.
		deadline := time.Now().Add(10 * time.Second)
		for {
			_, err := keyring.Get(keyringService, "probe")
			if err == nil || isNotFound(err) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the Secret Service did not answer: %v", err)
			}
			time.Sleep(100 * time.Millisecond)
		}
		fallthrough
	case "add-no-service":
		var note string
		id, err := q.Add(NewJob{Source: "https://files.example/f.bin", Dest: t.TempDir(), Doc: queuetest.Doc(100, 0, "f.bin"), Net: &secretSettings, NetNote: &note, Paused: true})
		if err != nil {
			t.Fatal(err)
		}
		fmt.Printf("job=%d\nnote=%s\n", id, note)
	case "read":
		id, _ := strconv.ParseInt(os.Getenv(keyringJob), 10, 64)
		got, ok, lost, err := q.Net(id)
		if err != nil || !ok {
			t.Fatalf("Net: ok %v err %v", ok, err)
		}
		fmt.Printf("lost=%v\npasswd-back=%v\ncookie-back=%v\n", lost, got.HTTPPasswd == secretSettings.HTTPPasswd,
			len(got.Headers) == 2 && strings.Contains(strings.Join(got.Headers, "\n"), "cookie-value-7"))
		service, user := q.secretKey(id)
		if err := q.Remove(id); err != nil {
			t.Fatal(err)
		}
		_, err = keyring.Get(service, user)
		fmt.Printf("item-after-remove=%v\n", !isNotFound(err))
	}
}

// field is the value of "name=" in a child's output.
func field(out, name string) string {
	for _, l := range strings.Split(out, "\n") {
		if v, ok := strings.CutPrefix(l, name+"="); ok {
			return v
		}
	}
	return ""
}

func TestNetInSystemKeyring(t *testing.T) {
	t.Parallel()
	env := sessionBus(t, true)
	dir := t.TempDir()
	out := keyringChild(t, env, "add", dir, "")
	if note := field(out, "note"); note != "" {
		t.Fatalf("with a Secret Service the add said %q", note)
	}
	job := field(out, "job")
	for _, s := range []string{"pw-in-memory-only", "cookie-value-7", "token-value-9", "link-pw-3"} {
		if stateHolds(t, dir, s) {
			t.Errorf("the state folder holds %q", s)
		}
	}
	// Another process, as after a restart: only the keyring has the secret.
	out = keyringChild(t, env, "read", dir, job)
	if field(out, "lost") != "false" || field(out, "passwd-back") != "true" || field(out, "cookie-back") != "true" {
		t.Errorf("a new process did not get the secret back from the keyring:\n%s", out)
	}
	if field(out, "item-after-remove") != "false" {
		t.Errorf("the keyring item outlived its job:\n%s", out)
	}
	// The keyring's own file holds the secret encrypted, not in clear.
	for _, p := range []string{"pw-in-memory-only", "cookie-value-7"} {
		if holdsUnder(t, env, p) {
			t.Errorf("a file under the home holds %q in clear", p)
		}
	}
}

// TestNetWithoutSecretService: a session bus with no Secret Service on it
// (a desktop without a keyring) keeps the secret for the session only and
// says so.
func TestNetWithoutSecretService(t *testing.T) {
	t.Parallel()
	env := sessionBus(t, false)
	dir := t.TempDir()
	out := keyringChild(t, env, "add-no-service", dir, "")
	if field(out, "note") != NoKeyringNote {
		t.Errorf("no sentence about the missing keyring:\n%s", out)
	}
	out = keyringChild(t, env, "read", dir, field(out, "job"))
	if field(out, "lost") != "true" || field(out, "passwd-back") != "false" {
		t.Errorf("a new process found a secret no keyring kept:\n%s", out)
	}
}

// holdsUnder reports whether a file under env's HOME (the last one set)
// holds s.
func holdsUnder(t *testing.T, env []string, s string) bool {
	t.Helper()
	home := ""
	for _, e := range env {
		if h, ok := strings.CutPrefix(e, "HOME="); ok {
			home = h
		}
	}
	if home == "" {
		t.Fatal("no HOME in the environment")
	}
	return stateHolds(t, home, s)
}
