package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// tags are the build tags the Makefile builds with.
const tags = "nosqlite,disable_libutp"

// buildBraid builds braid as the Makefile does, for tests that run it as a
// child process: bin/braid headless (the command line, without the GUI
// toolkit) and braid-window beside it (the same command with the window,
// which braid hands its window to). Both are built with the braidtest tag,
// which adds the window's test modes (package testmode). It returns the
// path of braid, in a folder of the test's own that it may change.
//
// The two are linked once for the whole test binary (linking them took
// about 24 s, and some 40 tests run them) and each test gets hard links to
// them (copies where links cannot be made).
//
// On Windows the tests run under Wine (or on a machine) without Go, so
// braid.exe and braid-window.exe are copies of this test binary, which
// runs braid's main when its name says it is braid (asBraid): the same
// code, with the window linked in both.
func buildBraid(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	if runtime.GOOS == "windows" {
		for _, name := range []string{"braid.exe", "braid-window.exe"} {
			if err := copyFile(os.Args[0], filepath.Join(dir, name)); err != nil {
				t.Fatalf("make %s from the test binary: %v", name, err)
			}
		}
		return filepath.Join(dir, "braid.exe")
	}
	built.Do(buildOnce)
	if built.err != nil {
		t.Fatal(built.err)
	}
	for _, name := range []string{"braid", "braid-window"} {
		from, to := filepath.Join(built.dir, name), filepath.Join(dir, name)
		if err := os.Link(from, to); err != nil {
			if err := copyFile(from, to); err != nil {
				t.Fatalf("give the test its %s: %v", name, err)
			}
		}
	}
	return filepath.Join(dir, "braid")
}

// built is braid and braid-window as linked once for this test binary,
// in a folder TestMain removes (builtDir).
var built struct {
	sync.Once
	dir string
	err error
}

func buildOnce() {
	built.dir, built.err = os.MkdirTemp("", "braid-test-bin-")
	if built.err != nil {
		return
	}
	for _, b := range []struct{ name, tags string }{
		{"braid", tags + ",headless,braidtest"},
		{"braid-window", tags + ",braidtest"},
	} {
		out, err := exec.Command("go", "build", "-tags", b.tags, "-o", filepath.Join(built.dir, b.name), ".").CombinedOutput()
		if err != nil {
			built.err = fmt.Errorf("go build %s: %v\n%s", b.name, err, out)
			return
		}
	}
}

// removeBuilt removes what buildOnce linked; TestMain calls it.
func removeBuilt() {
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
}

// asBraid reports whether this test binary runs as buildBraid's braid.exe
// or braid-window.exe.
func asBraid() bool {
	name := strings.TrimSuffix(strings.ToLower(filepath.Base(os.Args[0])), ".exe")
	return runtime.GOOS == "windows" && (name == "braid" || name == "braid-window")
}

func copyFile(from, to string) error {
	b, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, b, 0o755)
}

// The headless braid links no GUI toolkit, and hands the window to the real
// braid-window beside it, or says plainly that there is none.
func TestHeadlessBuild(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("builds braid with go, which the Windows test run (under Wine) does not have; the headless build is the same code on every system")
	}
	out, err := exec.Command("go", "list", "-deps", "-tags", tags+",headless", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, p := range strings.Fields(string(out)) {
		if strings.HasPrefix(p, "fyne.io/") || p == "braid/ui" || strings.HasPrefix(p, "braid/ui/") {
			t.Errorf("the headless braid depends on %s", p)
		}
	}

	bin := buildBraid(t)
	state := filepath.Join(t.TempDir(), "state")
	run := func(path string) (string, int) {
		cmd := exec.Command(bin, "--state", state)
		cmd.Env = append(withoutDisplay(os.Environ()), "PATH="+path)
		out, err := cmd.CombinedOutput()
		var exit *exec.ExitError
		switch {
		case errors.As(err, &exit):
			return string(out), exit.ExitCode()
		case err != nil:
			t.Fatalf("run braid: %v", err)
		}
		return string(out), 0
	}
	// Without a display, only braid-window itself can say what it says.
	got, code := run(os.Getenv("PATH"))
	if code != 1 || !strings.Contains(got, "the window needs a display") {
		t.Fatalf("braid without a display: exit %d, %q; want braid-window's message and exit 1", code, got)
	}
	if err := os.Remove(filepath.Join(filepath.Dir(bin), "braid-window")); err != nil {
		t.Fatal(err)
	}
	got, code = run(t.TempDir())
	if code != 1 || !strings.Contains(got, "braid-window") || !strings.Contains(got, "braid get") {
		t.Fatalf("braid without braid-window: exit %d, %q; want a message naming braid-window and the commands, exit 1", code, got)
	}
	if _, err := os.Stat(state); !os.IsNotExist(err) {
		t.Errorf("braid opened a queue in %s without a window (stat: %v)", state, err)
	}
}

// The window's test modes (screenshots, adding without the picker, the
// texts written out) are in no shipped build: no package of the Makefile's
// braid or braid-window holds their variables, and the braidtest tag is
// what brings them in.
func TestShippedBuildHasNoTestModes(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("runs go list, which the Windows test run (under Wine) does not have; the build tags are the same on every system")
	}
	const modes = "braid/cmd/braid/internal/testmode"
	deps := func(tags string) map[string][]string {
		out, err := exec.Command("go", "list", "-deps", "-tags", tags, "-f", `{{.ImportPath}} {{.Dir}} {{join .GoFiles " "}}`, ".").Output()
		if err != nil {
			t.Fatalf("go list -tags %s: %v", tags, err)
		}
		files := map[string][]string{}
		for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			f := strings.Fields(line)
			if len(f) < 2 || (f[0] != "braid" && !strings.HasPrefix(f[0], "braid/")) {
				continue
			}
			for _, name := range f[2:] {
				files[f[0]] = append(files[f[0]], filepath.Join(f[1], name))
			}
		}
		return files
	}
	for _, tt := range []string{tags, tags + ",headless"} {
		for pkg, files := range deps(tt) {
			if pkg == modes {
				t.Errorf("braid built with -tags %s links %s", tt, modes)
			}
			for _, path := range files {
				b, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				for _, name := range []string{"BRAID_SCREENSHOT", "BRAID_AUTOADD", "BRAID_DUMP_TEXTS"} {
					if strings.Contains(string(b), name) {
						t.Errorf("%s, in braid built with -tags %s, names %s", path, tt, name)
					}
				}
			}
		}
	}
	if _, ok := deps(tags + ",braidtest")[modes]; !ok {
		t.Errorf("braid built with the braidtest tag does not link %s: the tests' braid has no test modes", modes)
	}
}

// withoutDisplay is env without the variables that name a display.
func withoutDisplay(env []string) []string {
	var out []string
	for _, kv := range env {
		if !strings.HasPrefix(kv, "DISPLAY=") && !strings.HasPrefix(kv, "WAYLAND_DISPLAY=") {
			out = append(out, kv)
		}
	}
	return out
}

// BenchmarkStart is the cost of starting the headless braid, paid by every
// command a script runs and at the front of every download: exec, the
// runtime and every package's initialisers, up to a command that does
// nothing but print. A dependency whose init grows (a regexp compiled at
// start, a GUI toolkit linked in) shows here.
func BenchmarkStart(b *testing.B) {
	bin := buildBraid(b) // once: a benchmark with sub-benchmarks runs once
	b.Run("help", func(b *testing.B) {
		for range b.N {
			if out, err := exec.Command(bin, "help").CombinedOutput(); err != nil {
				b.Fatalf("braid help: %v\n%s", err, out)
			}
		}
	})
}
