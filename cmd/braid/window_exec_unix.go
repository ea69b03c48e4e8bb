//go:build headless && unix

package main

import (
	"fmt"
	"io"
	"os"
	"syscall"
)

// execWindow replaces this process with the window program, which keeps
// its process ID, its terminal and its signals: to the user and to a
// desktop launcher it is the braid they started.
func execWindow(path string, args []string, stderr io.Writer) int {
	err := syscall.Exec(path, append([]string{path}, args...), os.Environ())
	fmt.Fprintf(stderr, "braid: start %s: %v\n", path, err)
	return 1
}
