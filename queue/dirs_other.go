//go:build !windows

package queue

import (
	"os"
	"path/filepath"
)

// defaultDirs are the default state folder and the folder of the user's
// trusted keys: both os.UserConfigDir()/braid (~/.config/braid).
func defaultDirs() (state, keys string, err error) {
	cfg, err := os.UserConfigDir()
	if err != nil {
		return "", "", err
	}
	dir := filepath.Join(cfg, "braid")
	return dir, dir, nil
}

func samePath(a, b string) bool { return filepath.Clean(a) == filepath.Clean(b) }
