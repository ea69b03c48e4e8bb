//go:build unix

package platform

import (
	"fmt"
	"os"
)

// checkPrivate tells whether a socket folder is this user's alone, before
// secrets are sent to a socket in it; a folder that is not there is fine
// (nobody listens). A symbolic link is refused, whatever it points to.
func checkPrivate(dir string) error {
	fi, err := os.Lstat(dir)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if err := foreign(dir, fi); err != nil {
		return fmt.Errorf("%w; the link's cookies are not handed to it", err)
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return fmt.Errorf("socket folder %s is open to other users: the link's cookies are not handed to it", dir)
	}
	return nil
}
