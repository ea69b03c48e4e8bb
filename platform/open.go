package platform

import (
	"bytes"
	"fmt"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

// OpenFile opens path with the desktop's application for its type
// (xdg-open, open, or the Windows shell), as a double click in the file
// manager would. It returns once the desktop took the request; the error
// says why it did not (no desktop, no application for the type).
func OpenFile(path string) error {
	switch runtime.GOOS {
	case "darwin":
		return run("open", path)
	case "windows":
		return run("rundll32", "url.dll,FileProtocolHandler", path)
	}
	return run("xdg-open", path)
}

// ShowInFolder shows path in the desktop's file manager: selected where
// the file manager can (macOS, Windows), else its folder opened.
func ShowInFolder(path string) error {
	switch runtime.GOOS {
	case "darwin":
		return run("open", "-R", path)
	case "windows":
		// explorer answers 1 even when it did as asked.
		_ = exec.Command("explorer", "/select,"+path).Run()
		return nil
	}
	return run("xdg-open", filepath.Dir(path))
}

// run runs a program without a shell and waits for it; a failure carries
// the first line it wrote to stderr.
func run(name string, args ...string) error {
	cmd := exec.Command(name, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		if line, _, _ := strings.Cut(strings.TrimSpace(stderr.String()), "\n"); line != "" {
			return fmt.Errorf("%s: %w: %s", name, err, line)
		}
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}
