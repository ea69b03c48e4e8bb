// Command testhost is Braid's native messaging host alone, for the
// real-browser test: `testhost --state DIR --dir DIR BROWSER-ARGS...`.
// It writes the caller the browser named to DIR/caller.txt of the state
// folder, then serves stdin and stdout until the browser closes them,
// handing links to the Braid running on the user's socket as `braid
// native-host` does (it starts no window when none runs: it queues).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"braid/nativehost"
	"braid/platform"
)

func main() {
	state := flag.String("state", "", "the queue's state folder")
	dir := flag.String("dir", "", "the download folder")
	flag.Parse()
	if *state != "" {
		_ = os.MkdirAll(*state, 0o700)
		_ = os.WriteFile(filepath.Join(*state, "caller.txt"), []byte(nativehost.Caller(flag.Args())), 0o600)
	}
	sock := platform.SocketPath(os.Getenv)
	forward := func(ctx context.Context, l platform.Link) (platform.Answer, error) {
		return platform.Forward(ctx, sock, platform.Handoff{Add: &l})
	}
	err := nativehost.Serve(context.Background(), os.Stdin, os.Stdout, nativehost.Options{StateDir: *state, Dir: *dir, Forward: forward})
	if err != nil {
		fmt.Fprintf(os.Stderr, "testhost: %v\n", err)
		os.Exit(1)
	}
}
