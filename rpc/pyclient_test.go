package rpc

import (
	"context"
	"net/url"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
	"time"

	"braid/engine/mirrortest"
	"braid/internal/testkit"
)

// pythonWebsocket is a python that has websocket-client (Debian:
// python3-websocket), the library aria2p's notifications use; the test
// is skipped without one.
func pythonWebsocket(t *testing.T) string {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("runs python, a Linux program here; a test binary under Wine finds only Windows programs")
	}
	for _, p := range []string{"python3", "/usr/bin/python3"} {
		if exec.Command(p, "-c", "import websocket").Run() == nil {
			return p
		}
	}
	t.Skip("no python3 with websocket-client (Debian: python3-websocket): the python client is not tried")
	return ""
}

// notifySteps runs testdata/notify.py against the WebSocket on port and
// returns what it printed: the shapes of the answers and notifications.
func notifySteps(t *testing.T, who, python string, port int, secret, fast, slow string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, python, filepath.Join("testdata", "notify.py"), strconv.Itoa(port), secret, fast, slow)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("notify.py against %s: %v\n%s", who, err, out)
	}
	return string(out)
}

// Python's websocket-client (its default handshake carries the RPC's own
// Origin) adds a link, hears it start and complete, pauses, resumes and
// removes another, hearing each, over the WebSocket: Braid's answers and
// notifications have the shapes aria2c's have, step by step.
func TestPythonClientSameShapes(t *testing.T) {
	python := pythonWebsocket(t)
	aria2c, err := exec.LookPath("aria2c")
	if err != nil {
		t.Skip("aria2c is not installed (Debian: aria2): there is nothing to compare Braid's answers with")
	}
	fast := mirrortest.New(t, testkit.Data(256<<10), mirrortest.Path("/fast.bin"))
	slow := mirrortest.New(t, testkit.Data(16<<20), mirrortest.Rate(128<<10), mirrortest.Path("/slow.bin"))

	b := newDaemon(t, Options{}) // as braid queue run --rpc-listen runs it
	u, err := url.Parse(b.http.URL)
	if err != nil {
		t.Fatal(err)
	}
	port, _ := strconv.Atoi(u.Port())
	braidSays := notifySteps(t, "Braid", python, port, b.secret, fast.URL(), slow.URL())

	aport := testkit.FreePort(t)
	dir := t.TempDir()
	const secret = "s3cret-for-aria2c"
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, aria2c, "--no-conf", "--enable-rpc", "--rpc-listen-port="+strconv.Itoa(aport),
		"--rpc-secret="+secret, "--dir="+dir, "--quiet", "--disable-ipv6", "--auto-save-interval=0")
	cmd.Dir = dir
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		_ = cmd.Wait()
	})
	waitListening(t, aport)
	aria2Says := notifySteps(t, "aria2c", python, aport, secret, fast.URL()+"?aria2", slow.URL()+"?aria2")
	t.Logf("the steps:\n%s", aria2Says)
	if braidSays != aria2Says {
		t.Errorf("Braid's answers differ from aria2c's.\nBraid:\n%s\naria2c:\n%s", braidSays, aria2Says)
	}
}
