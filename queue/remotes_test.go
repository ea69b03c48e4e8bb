package queue

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"

	"braid/queue/queuetest"

	"github.com/zalando/go-keyring"
)

// The saved connections and the choice among them outlive the queue; an
// address with a password in it, the same address twice and a choice
// not in the list are refused in sentences, and state.db never holds the
// password.
func TestConnectionsKept(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	q := queuetest.Open(t, Open, dir)
	if s, err := q.Settings(); err != nil || len(s.Connections) != 0 || s.RunOn != "" {
		t.Fatalf("a new queue's connections: %v, %q, %v", s.Connections, s.RunOn, err)
	}
	nas := Connection{Name: "nas", URL: "http://nas.local:6800/jsonrpc"}
	box := Connection{Name: "seedbox", URL: "https://box.example/jsonrpc"}
	for _, c := range []struct {
		list   []Connection
		active string
		want   string
	}{
		{[]Connection{{URL: "http://me:pa55-in-url@nas.local:6800/jsonrpc"}}, "", "carries a password: give it as the secret instead"},
		{[]Connection{nas, nas}, "", "is listed twice"},
		{[]Connection{nas}, box.URL, "it is not a saved connection"},
		{[]Connection{{URL: "not an address"}}, "", "is not the address of downloads to drive"},
	} {
		err := q.UpdateSettings(func(st *Settings) { st.Connections, st.RunOn = c.list, c.active })
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("connections %v, run on %q: %v, want %q", c.list, c.active, err, c.want)
		}
	}
	if stateHolds(t, dir, "pa55-in-url") {
		t.Error("the state folder holds the password of a refused address")
	}
	if err := q.UpdateSettings(func(st *Settings) { st.Connections, st.RunOn = []Connection{nas, box}, box.URL }); err != nil {
		t.Fatal(err)
	}
	q.Close()
	q = queuetest.Open(t, Open, dir)
	s, err := q.Settings()
	if list := s.Connections; err != nil || len(list) != 2 || list[0] != nas || list[1] != box || s.RunOn != box.URL {
		t.Errorf("after reopening: %v, %q, %v; want nas and seedbox, seedbox chosen", list, s.RunOn, err)
	}
	if err := q.UpdateSettings(func(st *Settings) { st.Connections, st.RunOn = []Connection{nas}, "" }); err != nil {
		t.Fatal(err)
	}
	if s, _ := q.Settings(); len(s.Connections) != 1 || s.RunOn != "" {
		t.Errorf("after forgetting the seedbox: %v, %q", s.Connections, s.RunOn)
	}
	if ConnectionName("http://nas.local:6800/jsonrpc") != "nas.local:6800" {
		t.Errorf("a connection without a name goes by %q", ConnectionName("http://nas.local:6800/jsonrpc"))
	}
}

// connStep names the child's step for the connection keyring tests.
const connStep = "BRAID_TEST_CONN_STEP"

// TestConnectionKeyringChild is the child's side of the tests below; it
// does nothing unless run by them.
func TestConnectionKeyringChild(t *testing.T) {
	t.Parallel()
	step := os.Getenv(connStep)
	if step == "" {
		t.Skip("run by TestConnectionSecretInSystemKeyring and TestConnectionSecretWithoutSecretService")
	}
	q := queuetest.Open(t, Open, os.Getenv(keyringDir))
	link := "http://nas.local:6800/jsonrpc"
	switch step {
	case "set":
		deadline := time.Now().Add(10 * time.Second)
		for os.Getenv("BRAID_TEST_CONN_RING") == "1" {
			_, err := keyring.Get(keyringService, "probe")
			if err == nil || isNotFound(err) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the Secret Service did not answer: %v", err)
			}
			time.Sleep(100 * time.Millisecond)
		}
		if err := q.UpdateSettings(func(st *Settings) { st.Connections, st.RunOn = []Connection{{Name: "nas", URL: link}}, link }); err != nil {
			t.Fatal(err)
		}
		note := q.SetSecret(ConnectionSecret(link), "conn-s3cret-5", true)
		s, ok := q.Secret(ConnectionSecret(link))
		fmt.Printf("note=%s\nsame-process=%v\n", note, ok && s == "conn-s3cret-5")
	case "read":
		s, ok := q.Secret(ConnectionSecret(link))
		fmt.Printf("back=%v\n", ok && s == "conn-s3cret-5")
		// Forgetting the connection takes its secret out of the keyring.
		if err := q.UpdateSettings(func(st *Settings) { st.Connections, st.RunOn = nil, "" }); err != nil {
			t.Fatal(err)
		}
		_, err := keyring.Get(keyringService, q.key(ConnectionSecret(link)))
		fmt.Printf("item-after-forget=%v\n", !isNotFound(err))
	}
}

func connChild(t *testing.T, env []string, step, dir string) string {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestConnectionKeyringChild$", "-test.v")
	cmd.Env = append(env, connStep+"="+step, keyringDir+"="+dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("step %s: %v\n%s", step, err, out)
	}
	return string(out)
}

// A connection's secret goes to the system keyring, never to the state
// folder or the keyring's files in clear; another process (Braid started
// again) gets it back; forgetting the connection deletes it.
// On Windows the keyring is the Credential Manager, which every session
// has (under Wine too).
func TestConnectionSecretInSystemKeyring(t *testing.T) {
	t.Parallel()
	env := os.Environ()
	if runtime.GOOS != "windows" {
		env = sessionBus(t, true)
	}
	env = append(env, "BRAID_TEST_CONN_RING=1")
	dir := t.TempDir()
	out := connChild(t, env, "set", dir)
	if field(out, "note") != "" || field(out, "same-process") != "true" {
		t.Fatalf("with a system keyring:\n%s", out)
	}
	if stateHolds(t, dir, "conn-s3cret-5") {
		t.Error("the state folder holds the connection's secret")
	}
	if runtime.GOOS != "windows" && holdsUnder(t, env, "conn-s3cret-5") {
		t.Error("a file of the keyring holds the connection's secret in clear")
	}
	out = connChild(t, env, "read", dir)
	if field(out, "back") != "true" || field(out, "item-after-forget") != "false" {
		t.Errorf("after a restart:\n%s", out)
	}
}

// Without a Secret Service the secret lasts for the process, which says
// so in a sentence, and a new process has none.
func TestConnectionSecretWithoutSecretService(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("Windows has no session without a keyring: the Credential Manager is always there (TestConnectionSecretInSystemKeyring uses it)")
	}
	env := sessionBus(t, false)
	dir := t.TempDir()
	out := connChild(t, env, "set", dir)
	if field(out, "note") != NoKeyringConnectionNote || field(out, "same-process") != "true" {
		t.Errorf("without a keyring:\n%s", out)
	}
	if stateHolds(t, dir, "conn-s3cret-5") {
		t.Error("the state folder holds the secret")
	}
	if out := connChild(t, env, "read", dir); field(out, "back") != "false" {
		t.Errorf("a new process found a secret no keyring kept:\n%s", out)
	}
}
