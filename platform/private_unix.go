//go:build unix

package platform

import (
	"fmt"
	"os"
	"syscall"
)

// privateDir refuses a socket folder that another user owns or can enter.
func privateDir(dir string) error {
	fi, err := os.Stat(dir)
	if err != nil {
		return err
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Getuid() {
		return fmt.Errorf("socket folder %s belongs to another user", dir)
	}
	if fi.Mode().Perm()&0o077 != 0 {
		if err := os.Chmod(dir, 0o700); err != nil {
			return fmt.Errorf("making socket folder %s private: %w", dir, err)
		}
	}
	return nil
}

// checkPrivate tells whether a socket folder is this user's alone, before
// secrets are sent to a socket in it; a folder that is not there is fine
// (nobody listens).
func checkPrivate(dir string) error {
	fi, err := os.Stat(dir)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Getuid() {
		return fmt.Errorf("socket folder %s belongs to another user: the link's cookies are not handed to it", dir)
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return fmt.Errorf("socket folder %s is open to other users: the link's cookies are not handed to it", dir)
	}
	return nil
}
