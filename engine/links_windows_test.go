package engine

import (
	"os"
	"os/exec"
	"testing"
)

// linkOutside makes link a Windows link to target: a symbolic link, or
// for a folder a junction (mklink /J) where symbolic links need a
// privilege the user lacks. It skips the test where the system makes no
// link: Wine 8's CreateSymbolicLinkW is a stub that reports success and
// makes nothing, and it refuses the junction's FSCTL_SET_REPARSE_POINT
// ("Request not supported"). Wine's own links are Unix symlinks, which it
// follows without showing them to a Windows program as links at all.
func linkOutside(t *testing.T, target, link string, dir bool) {
	t.Helper()
	err := os.Symlink(target, link)
	if err != nil && dir {
		var out []byte
		out, err = exec.Command("cmd", "/c", "mklink", "/J", link, target).CombinedOutput()
		if err != nil {
			t.Logf("mklink /J: %s", out)
		}
	}
	fi, lerr := os.Lstat(link)
	if err != nil || lerr != nil || fi.Mode()&(os.ModeSymlink|os.ModeIrregular) == 0 {
		t.Skipf("this system makes no Windows link (symlink: %v; then %v): Wine 8's CreateSymbolicLinkW is a stub and it has no FSCTL_SET_REPARSE_POINT; on Windows a file symlink needs developer mode or the symlink privilege", err, lerr)
	}
}
