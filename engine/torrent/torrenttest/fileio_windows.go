package torrenttest

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
)

// fileIOEnv chooses the file I/O of the library's file storage, which the
// seeders here use. The library reads it once, when its storage package
// starts, so it must be set before the test binary starts.
const fileIOEnv = "TORRENT_STORAGE_DEFAULT_FILE_IO"

// RerunWithClassicIO runs the test binary again, with the same arguments,
// standard streams and environment, but with the seeders' file storage
// reading and writing files instead of memory-mapping them: Windows cannot
// delete a file that is still mapped, and the library keeps its maps after
// its client closes, so no test's temporary folder could be removed.
// Braid's own storage maps nothing. It returns the child's exit code and
// true; in the child (or when the variable is already set) it returns
// false and the caller runs its tests. Call it first in TestMain:
//
//	if code, rerun := torrenttest.RerunWithClassicIO(); rerun {
//		os.Exit(code)
//	}
func RerunWithClassicIO() (code int, rerun bool) {
	if os.Getenv(fileIOEnv) != "" {
		return 0, false
	}
	cmd := exec.Command(os.Args[0], os.Args[1:]...)
	cmd.Env = append(os.Environ(), fileIOEnv+"=classic")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode(), true
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "The tests could not be run again with the seeders' files read and written without memory maps: %v\n", err)
		return 1, true
	}
	return 0, true
}
