// Command testhost is Braid's native messaging host alone, for the
// real-browser test: `testhost --state DIR --dir DIR BROWSER-ARGS...`.
// It writes the caller the browser named to DIR/caller.txt of the state
// folder, then serves stdin and stdout until the browser closes them.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"braid/nativehost"
)

func main() {
	state := flag.String("state", "", "the queue's state folder")
	dir := flag.String("dir", "", "the download folder")
	flag.Parse()
	if *state != "" {
		_ = os.MkdirAll(*state, 0o700)
		_ = os.WriteFile(filepath.Join(*state, "caller.txt"), []byte(nativehost.Caller(flag.Args())), 0o600)
	}
	err := nativehost.Serve(context.Background(), os.Stdin, os.Stdout, nativehost.Options{StateDir: *state, Dir: *dir})
	if err != nil {
		fmt.Fprintf(os.Stderr, "testhost: %v\n", err)
		os.Exit(1)
	}
}
