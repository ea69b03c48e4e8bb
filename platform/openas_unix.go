//go:build unix

package platform

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// linkAs makes a symbolic link named after name's last element, in a new
// private folder of the user's runtime folder (or the temporary folder),
// that points at the file target, and returns its path. Folders such
// links were made in a day or more ago are removed first.
func linkAs(target, name string) (string, error) {
	abs, err := filepath.Abs(target)
	if err != nil {
		return "", err
	}
	base := os.Getenv("XDG_RUNTIME_DIR")
	if base == "" {
		base = os.TempDir()
	}
	if old, _ := filepath.Glob(filepath.Join(base, "braid-open-*")); len(old) > 0 {
		for _, d := range old {
			if fi, err := os.Lstat(d); err == nil && fi.IsDir() && time.Since(fi.ModTime()) > 24*time.Hour {
				os.RemoveAll(d)
			}
		}
	}
	dir, err := os.MkdirTemp(base, "braid-open-") // 0700
	if err != nil {
		return "", fmt.Errorf("make a folder to open %s from: %w", filepath.Base(name), err)
	}
	link := filepath.Join(dir, filepath.Base(filepath.FromSlash(name)))
	if err := os.Symlink(abs, link); err != nil {
		os.Remove(dir)
		return "", fmt.Errorf("link %s to open it: %w", filepath.Base(name), err)
	}
	return link, nil
}

// isURL reports whether target is an http or https URL rather than a
// file's path.
func isURL(target string) bool {
	return strings.HasPrefix(target, "http://") || strings.HasPrefix(target, "https://")
}
