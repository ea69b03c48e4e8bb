//go:build unix

package platform

import (
	"context"
	"errors"
	"fmt"
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
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("socket folder %s: %w", dir, err)
	}
	if err := privateDir(dir); err != nil {
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
