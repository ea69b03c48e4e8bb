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
