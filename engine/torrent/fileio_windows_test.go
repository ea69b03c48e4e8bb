package torrent_test

import (
	"errors"
	"os"
	"os/exec"
)

// fileIOEnv chooses the file I/O of the library's file storage, which the
// tests' seeders use (torrenttest). It is read once, when the library's
// storage package starts.
const fileIOEnv = "TORRENT_STORAGE_DEFAULT_FILE_IO"

// rerunWithClassicIO runs the test binary again with the seeders' file
// storage reading and writing files, not memory-mapping them: Windows
// cannot delete a file that is still mapped, and the library keeps its
// maps after its client closes, so no test's temporary folder could be
// removed. Braid's own storage maps nothing. It reports the child's exit
// code, and false when this process is that child.
func rerunWithClassicIO() (int, bool) {
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
		os.Stderr.WriteString("rerun the tests with classic file I/O: " + err.Error() + "\n")
		return 1, true
	}
	return 0, true
}
