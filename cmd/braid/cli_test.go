package main

import (
	"bytes"
	"context"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func runMain(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(context.Background(), args, &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestVersion(t *testing.T) {
	for _, arg := range []string{"--version", "-version", "version"} {
		code, out, errOut := runMain(t, arg)
		if code != 0 || !strings.HasPrefix(out, "braid "+version) {
			t.Errorf("braid %s: exit %d, stdout %q, stderr %q", arg, code, out, errOut)
		}
	}
}

func TestUsageErrors(t *testing.T) {
	t.Setenv("DISPLAY", ":99") // a display is not what these are about
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"frobnicate"}, `unknown command "frobnicate"`},
		{[]string{"--state", t.TempDir(), "frobnicate", "now"}, "unknown command"},
		{[]string{filepath.Join(t.TempDir(), "none.meta4")}, "no such file, and not a link"},
		{[]string{"./typo.metalink"}, "no such file"},
	}
	for _, tc := range tests {
		code, _, errOut := runMain(t, tc.args...)
		if code != 2 || !strings.Contains(errOut, tc.want) || !strings.Contains(errOut, "braid") {
			t.Errorf("braid %q: exit %d, stderr %q; want 2 and %q", tc.args, code, errOut, tc.want)
		}
	}
}

// Without a display the window says so and names the headless commands,
// instead of panicking in the GUI toolkit; a link given then is no usage
// error, but still needs the window.
func TestNoDisplay(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("a Windows session always has a desktop: there is no display to lack (under Wine the window opens on Wine's own X display and stays)")
	}
	t.Setenv("DISPLAY", "")
	t.Setenv("WAYLAND_DISPLAY", "")
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	t.Setenv("BRAID_STATE", t.TempDir())
	for _, args := range [][]string{nil, {"http://127.0.0.1:1/f.meta4"}} {
		code, _, errOut := runMain(t, args...)
		if code != 1 || !strings.Contains(errOut, "needs a display") || !strings.Contains(errOut, "braid get") {
			t.Errorf("braid %q without a display: exit %d, stderr %q", args, code, errOut)
		}
	}
}
