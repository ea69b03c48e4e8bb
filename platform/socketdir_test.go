//go:build unix

// Windows has no socket folder: its pipe's access list grants this user
// alone (TestPipeIsThisUsersAlone), so these tests have no Windows form.

package platform

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestSocketFolderIsNotFollowed: what another user may plant where the
// socket folder goes (in /tmp without XDG_RUNTIME_DIR) is refused with a
// sentence, and nothing it points to is changed: a symbolic link (to a
// folder, to a file, dangling), a file, a folder of another user's.
func TestSocketFolderIsNotFollowed(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		plant func(t *testing.T, dir, target string)
		want  string
	}{
		{"symlink to a folder", func(t *testing.T, dir, target string) {
			mustDo(t, os.Mkdir(target, 0o755))
			mustDo(t, os.Symlink(target, dir))
		}, "symbolic link"},
		{"symlink to a file", func(t *testing.T, dir, target string) {
			mustDo(t, os.WriteFile(target, []byte("x"), 0o644))
			mustDo(t, os.Symlink(target, dir))
		}, "symbolic link"},
		{"dangling symlink", func(t *testing.T, dir, target string) {
			mustDo(t, os.Symlink(target, dir))
		}, "symbolic link"},
		{"a file", func(t *testing.T, dir, target string) {
			mustDo(t, os.WriteFile(dir, []byte("x"), 0o644))
		}, "not a folder"},
		{"another user's folder", func(t *testing.T, dir, target string) {
			if os.Getuid() != 0 {
				t.Skip("needs root to give a folder to another user")
			}
			mustDo(t, os.Mkdir(dir, 0o755))
			mustDo(t, os.Chown(dir, 65534, 65534))
		}, "belongs to another user"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			path := socketPath(t)
			dir := filepath.Dir(path)
			target := filepath.Join(t.TempDir(), "victim")
			tc.plant(t, dir, target)
			var before os.FileInfo
			if fi, err := os.Lstat(target); err == nil {
				before = fi
			}
			in, err := Listen(path)
			if err == nil {
				in.Close()
				t.Fatalf("Listen through %s: no error", tc.name)
			}
			if !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), dir) {
				t.Errorf("Listen through %s: %q, want a sentence that names %s and says %q", tc.name, err, dir, tc.want)
			}
			if before != nil {
				after, err := os.Lstat(target)
				if err != nil || after.Mode() != before.Mode() {
					t.Errorf("the link's target changed: mode %v, was %v (%v)", after.Mode(), before.Mode(), err)
				}
			}
			if fi, err := os.Lstat(dir); err == nil && fi.Mode().IsDir() {
				if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Getuid() && fi.Mode().Perm() != 0o755 {
					t.Errorf("another user's folder was changed to %v", fi.Mode())
				}
			}
		})
	}
}

// TestSocketFolderMadeAndKept: a missing folder is made private, and one
// of ours that others may enter is made private again, in place.
func TestSocketFolderMadeAndKept(t *testing.T) {
	t.Parallel()
	path := socketPath(t)
	in, err := Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	in.Close()
	fi, err := os.Lstat(filepath.Dir(path))
	if err != nil || !fi.IsDir() || fi.Mode().Perm() != 0o700 {
		t.Fatalf("made folder: %v %v, want a folder of mode 700", fi, err)
	}
	mustDo(t, os.Chmod(filepath.Dir(path), 0o755))
	in, err = Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	in.Close()
	if fi, err := os.Lstat(filepath.Dir(path)); err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("an open folder of ours: %v %v, want mode 700 again", fi, err)
	}
}

// TestDialRefusesLinkedFolder: secrets are not sent to a socket whose
// folder is a symbolic link, even to a private folder of ours.
func TestDialRefusesLinkedFolder(t *testing.T) {
	t.Parallel()
	real := socketPath(t)
	in, err := Listen(real)
	if err != nil {
		t.Fatal(err)
	}
	serve(t, in, func(h Handoff) (Answer, error) { return Answer{}, nil })
	link := filepath.Join(t.TempDir(), "linked")
	mustDo(t, os.Symlink(filepath.Dir(real), link))
	c, err := dial(t.Context(), filepath.Join(link, filepath.Base(real)), true)
	if err == nil {
		c.Close()
	}
	if err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("dial through a linked folder: %v, want it refused", err)
	}
}

func mustDo(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
