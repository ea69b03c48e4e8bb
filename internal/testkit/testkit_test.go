package testkit

import (
	"bytes"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// Data is the same for the same length and differs between lengths from
// the first byte, so two files of a test cannot pass for each other.
func TestData(t *testing.T) {
	a, b := Data(4096), Data(4096)
	if len(a) != 4096 || !bytes.Equal(a, b) {
		t.Fatalf("Data(4096) twice: lengths %d and %d, equal %v; want the same 4096 bytes", len(a), len(b), bytes.Equal(a, b))
	}
	if c := Data(4097); bytes.Equal(a[:64], c[:64]) {
		t.Error("Data(4096) and Data(4097) begin alike")
	}
	if bytes.Count(a, a[:1]) == len(a) {
		t.Error("Data is one byte repeated")
	}
}

// Eventually waits for a condition that comes, and gives up on one that
// never does once the limit has passed, not before.
func TestEventually(t *testing.T) {
	var n atomic.Int32
	go func() {
		time.Sleep(50 * time.Millisecond)
		n.Store(1)
	}()
	if !Eventually(10*time.Second, func() bool { return n.Load() == 1 }) {
		t.Error("Eventually gave up on a condition that came after 50 ms")
	}
	start := time.Now()
	if Eventually(100*time.Millisecond, func() bool { return false }) {
		t.Error("Eventually reported a condition that never holds")
	}
	if took := time.Since(start); took < 100*time.Millisecond {
		t.Errorf("Eventually gave up after %s, before its limit of 100 ms", took)
	}
	asked := 0
	EventuallyEvery(350*time.Millisecond, 100*time.Millisecond, func() bool { asked++; return false })
	if asked < 2 || asked > 6 {
		t.Errorf("EventuallyEvery asked %d times in 350 ms at one ask per 100 ms, want about 4", asked)
	}
}

// FreePort's port can be listened on.
func TestFreePort(t *testing.T) {
	p := FreePort(t)
	ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p))
	if err != nil {
		t.Fatalf("listen on the free port %d: %v", p, err)
	}
	ln.Close()
}

// ShortDir is short enough for a Unix socket inside it, and gone after the
// test.
func TestShortDir(t *testing.T) {
	var dir string
	t.Run("use", func(t *testing.T) {
		dir = ShortDir(t, "btk")
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			t.Fatalf("ShortDir %s: %v", dir, err)
		}
		if sock := filepath.Join(dir, "braid", "braid.sock"); len(sock) > 100 {
			t.Errorf("a socket in ShortDir is %d bytes long, more than a Unix socket's path takes: %s", len(sock), sock)
		}
	})
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("ShortDir %s is still there after its test (stat: %v)", dir, err)
	}
}

// Only tests import testkit: no package's own code does.
func TestOnlyTestsImport(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("runs go list, which the Windows test run (under Wine) does not have; imports are the same on every system")
	}
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Imports " "}}`, "braid/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	const self = "braid/internal/testkit"
	found := false
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		found = found || f[0] == self
		for _, imp := range f[1:] {
			if imp == self {
				t.Errorf("%s imports %s outside its tests", f[0], self)
			}
		}
	}
	if !found {
		t.Errorf("go list braid/... does not list %s: the check saw no packages", self)
	}
}
