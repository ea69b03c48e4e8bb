package rpc

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"braid/engine/mirrortest"
	"braid/engine/netconf/netconftest"
	"braid/engine/torrent/torrenttest"
	"braid/internal/testkit"
)

// The conformance script (testdata/conformance.js) runs through the aria2
// npm package against aria2c, to show the script is right, and against
// Braid.

// clientLibrary installs the aria2 npm package into testdata/node_modules
// (from package-lock.json) when it is not there, and returns node's path.
func clientLibrary(t *testing.T) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil && runtime.GOOS == "windows" {
		t.Skip("needs node, a Linux program (Debian: nodejs npm); a test binary under Wine finds only Windows programs, so the aria2 client library cannot run")
	}
	if err != nil {
		t.Skip("node is not installed (Debian: nodejs npm): the aria2 client library cannot run")
	}
	if _, err := os.Stat(filepath.Join("testdata", "node_modules", "aria2", "package.json")); err == nil {
		return node
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		t.Skip("npm is not installed (Debian: npm): the aria2 client library cannot be installed")
	}
	cmd := exec.Command(npm, "ci", "--no-audit", "--no-fund")
	cmd.Dir = "testdata"
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Skipf("npm ci in rpc/testdata failed (is the npm registry reachable?): %v\n%s", err, out)
	}
	return node
}

// script is what the conformance script needs: mirrors of one file and a
// slow mirror, on loopback; a metalink of that file and a torrent.
type script struct {
	mirrors  []string
	size     int
	sha      string
	slow     string
	metalink string // Metalink 4 of the file, named meta.bin
	torrent  []byte // a .torrent of one small file, which no peer has
	infoHash string
	login    string // the file behind nginx's Basic login (loginUser, loginPass)
}

// The login of script.login.
const loginUser, loginPass = "conformer", "conformance-pw-6"

func newScript(t *testing.T) script {
	data := mirrortest.Bytes(3<<20+12345, 7)
	m1 := mirrortest.New(t, data)
	m2 := mirrortest.New(t, data)
	slow := mirrortest.New(t, mirrortest.Bytes(16<<20, 8), mirrortest.Rate(64<<10), mirrortest.Path("/slow.bin"))
	sum := sha256.Sum256(data)
	mi := torrenttest.Make(t, t.TempDir(), "conformance.bin", 16<<10, []torrenttest.File{{Data: mirrortest.Bytes(40000, 9)}})
	var tb bytes.Buffer
	if err := mi.Write(&tb); err != nil {
		t.Fatal(err)
	}
	ng := netconftest.Nginx(t, map[string][]byte{"f.bin": data}, loginUser, loginPass)
	return script{mirrors: []string{m1.URL(), m2.URL()}, size: len(data), sha: hex.EncodeToString(sum[:]), slow: slow.URL(),
		metalink: meta4("meta.bin", data, m1.URL(), m2.URL()), torrent: tb.Bytes(), infoHash: mi.HashInfoBytes().HexString(),
		login: ng.URL + "/basic/f.bin"}
}

// run runs the script against the server on port and fails the test with
// its output unless every check passed.
func (s script) run(t *testing.T, node string, port int, secret, dir string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "conformance.js")
	cmd.Dir = "testdata"
	cmd.Env = append(os.Environ(),
		"RPC_PORT="+strconv.Itoa(port), "RPC_SECRET="+secret, "DIR="+dir,
		"MIRRORS="+strings.Join(s.mirrors, " "), "FILE_SIZE="+strconv.Itoa(s.size), "FILE_SHA256="+s.sha,
		"SLOW_URL="+s.slow, "METALINK="+s.metalink, "TORRENT_B64="+base64.StdEncoding.EncodeToString(s.torrent),
		"TORRENT_INFOHASH="+s.infoHash, "LOGIN_URL="+s.login, "LOGIN_USER="+loginUser, "LOGIN_PASS="+loginPass)
	out, err := cmd.CombinedOutput()
	t.Logf("conformance.js:\n%s", out)
	if err != nil {
		t.Fatalf("conformance.js: %v", err)
	}
	if !strings.Contains(string(out), " passed, 0 failed") {
		t.Fatal("conformance.js did not report its checks")
	}
}

func TestConformanceBraid(t *testing.T) {
	t.Parallel()
	node := clientLibrary(t)
	b := newBraid(t, Options{})
	u, err := url.Parse(b.http.URL)
	if err != nil {
		t.Fatal(err)
	}
	port, _ := strconv.Atoi(u.Port())
	newScript(t).run(t, node, port, b.secret, b.dir)
}

// Not parallel: aria2c, a separate program, listens on a port found free a
// moment before, and a dial that another test's listener on that port
// answered would pass for it.
func TestConformanceAria2c(t *testing.T) {
	node := clientLibrary(t)
	aria2c, err := exec.LookPath("aria2c")
	if err != nil {
		t.Skip("aria2c is not installed (Debian: aria2): the script is not checked against aria2 itself")
	}
	s := newScript(t)
	port := testkit.FreePort(t)
	dir := t.TempDir()
	const secret = "s3cret-for-aria2c"
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, aria2c, "--no-conf", "--enable-rpc", "--rpc-listen-port="+strconv.Itoa(port),
		"--rpc-secret="+secret, "--dir="+dir, "--quiet", "--disable-ipv6", "--auto-save-interval=0")
	cmd.Dir = dir
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		_ = cmd.Wait()
	})
	waitListening(t, port)
	s.run(t, node, port, secret, dir)
}

// waitListening waits for a server to accept on the loopback port.
func waitListening(t *testing.T, port int) {
	t.Helper()
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(10 * time.Second)
	for {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return
		}
		select {
		case <-tick.C:
		case <-deadline:
			t.Fatalf("nothing listens on %s", addr)
		}
	}
}
