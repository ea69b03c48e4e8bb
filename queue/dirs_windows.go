package queue

import (
	"os"
	"path/filepath"
	"strings"
)

// defaultDirs are the default state folder and the folder of the user's
// trusted keys on Windows. The queue database holds the jobs, their
// recorded pieces, the window's and command line's settings (one database,
// so both change them in one transaction) and paths on this machine's
// drives; it lives with its lock and log in %LOCALAPPDATA%\Braid, which
// stays on the machine: a roaming profile must not copy a live SQLite
// database, nor take paths to another machine. The trusted keys are the
// user's own, a plain file, and roam in %APPDATA%\Braid.
func defaultDirs() (state, keys string, err error) {
	local, err := os.UserCacheDir() // %LocalAppData%
	if err != nil {
		return "", "", err
	}
	roaming, err := os.UserConfigDir() // %AppData%
	if err != nil {
		return "", "", err
	}
	return filepath.Join(local, "Braid"), filepath.Join(roaming, "Braid"), nil
}

// samePath: Windows' file names are case-insensitive.
func samePath(a, b string) bool { return strings.EqualFold(filepath.Clean(a), filepath.Clean(b)) }
