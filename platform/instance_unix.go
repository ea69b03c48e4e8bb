//go:build unix

package platform

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// SocketPath is the per-user socket the running Braid listens on: in
// XDG_RUNTIME_DIR (already private to the user), else in a private folder
// of the temporary directory named after the user.
func SocketPath(getenv func(string) string) string {
	if dir := getenv("XDG_RUNTIME_DIR"); dir != "" {
		return filepath.Join(dir, "braid", "braid.sock")
	}
	return filepath.Join(os.TempDir(), fmt.Sprintf("braid-%d", os.Getuid()), "braid.sock")
}

// listen listens on the Unix socket at path, in a private folder; a socket
// that nobody answers any more (its Braid died) is replaced.
func listen(path string) (net.Listener, error) {
	if err := socketDir(filepath.Dir(path)); err != nil {
		return nil, err
	}
	ln, err := net.Listen("unix", path)
	if err != nil && errors.Is(err, syscall.EADDRINUSE) {
		if alive(path) {
			return nil, ErrRunning
		}
		// Stale: nobody answers. Remove it and take its place.
		if rmErr := os.Remove(path); rmErr != nil && !errors.Is(rmErr, os.ErrNotExist) {
			return nil, fmt.Errorf("removing stale socket %s: %w", path, rmErr)
		}
		ln, err = net.Listen("unix", path)
	}
	if err != nil {
		return nil, fmt.Errorf("listening on %s: %w", path, err)
	}
	return ln, nil
}

// socketDir makes dir, the socket's folder, this user's alone, without
// following a link: in /tmp (no XDG_RUNTIME_DIR) another user may have
// planted a symbolic link or a folder of theirs at its name. Those are
// refused, never changed; a folder of ours that others may enter is made
// private through a handle opened without following links.
func socketDir(dir string) error {
	if err := os.MkdirAll(filepath.Dir(dir), 0o700); err != nil {
		return fmt.Errorf("cannot make the folder for Braid's socket, %s: %w", filepath.Dir(dir), err)
	}
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("cannot make the folder for Braid's socket, %s: %w", dir, err)
	}
	if err := refuseForeign(dir); err != nil {
		return err
	}
	f, err := os.OpenFile(dir, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return fmt.Errorf("cannot open the folder for Braid's socket, %s: %w", dir, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("cannot read the folder for Braid's socket, %s: %w", dir, err)
	}
	if err := foreign(dir, fi); err != nil {
		return err // swapped since the first look
	}
	if fi.Mode().Perm()&0o077 != 0 {
		if err := f.Chmod(0o700); err != nil {
			return fmt.Errorf("cannot make the folder for Braid's socket, %s, private: %w", dir, err)
		}
	}
	return nil
}

// refuseForeign looks at dir without following a link and refuses what is
// not a folder of this user's.
func refuseForeign(dir string) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("cannot read the folder for Braid's socket, %s: %w", dir, err)
	}
	return foreign(dir, fi)
}

// foreign refuses fi, dir's as Lstat sees it, unless it is a folder of
// this user's.
func foreign(dir string, fi fs.FileInfo) error {
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		return fmt.Errorf("the folder for Braid's socket, %s, is a symbolic link, which Braid does not follow (remove it if you did not make it)", dir)
	case !fi.IsDir():
		return fmt.Errorf("the folder for Braid's socket, %s, is not a folder (remove it if you did not make it)", dir)
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Getuid() {
		return fmt.Errorf("the folder for Braid's socket, %s, belongs to another user", dir)
	}
	return nil
}

func alive(path string) bool {
	c, err := net.DialTimeout("unix", path, time.Second)
	if err != nil {
		return false
	}
	c.Close()
	return true
}

// dial connects to the running Braid's socket, or fails with ErrNotRunning.
// With secret (a link's cookies go over it) the socket's folder must be
// this user's alone and the listener this user's process.
func dial(ctx context.Context, path string, secret bool) (net.Conn, error) {
	if secret {
		if err := checkPrivate(filepath.Dir(path)); err != nil {
			return nil, err
		}
	}
	var d net.Dialer
	c, err := d.DialContext(ctx, "unix", path)
	if err != nil {
		return nil, ErrNotRunning
	}
	if secret && !samePeer(c) {
		c.Close()
		return nil, fmt.Errorf("the socket %s is another user's: the link's cookies are not handed to it", path)
	}
	return c, nil
}
