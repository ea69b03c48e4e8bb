package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"braid/nativehost"
	"braid/platform"
)

// cmdNativeHost is the browsers' native messaging host: the extension
// hands links to Braid through it (stdin and stdout carry the browser's
// protocol, so nothing else may write to stdout). The browser starts it
// with its own arguments (Chrome: the extension's origin; Firefox: the
// manifest's path and the extension's ID), which flag parsing stops at.
func cmdNativeHost(ctx context.Context, args []string, _, stderr io.Writer) int {
	fs := flag.NewFlagSet("braid native-host", flag.ContinueOnError)
	fs.SetOutput(stderr)
	state := fs.String("state", "", "the queue's folder (default: $BRAID_STATE, else the user config folder)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	sock := platform.SocketPath(os.Getenv)
	forward := func(ctx context.Context, l platform.Link) (platform.Answer, error) {
		return handLink(ctx, sock, *state, l)
	}
	if err := nativehost.Serve(ctx, os.Stdin, os.Stdout, nativehost.Options{StateDir: *state, Forward: forward}); err != nil {
		fmt.Fprintf(stderr, "braid native-host: %v\n", err)
		return 1
	}
	return 0
}

// registerBrowsers registers (or, with undo, unregisters) the native
// messaging host with the browsers found, for braid install.
func registerBrowsers(exe string, undo bool) ([]string, error) {
	reg := nativehost.Registration(exe, "native-host")
	if undo {
		return nil, platform.UnregisterNativeHost(reg)
	}
	return platform.RegisterNativeHost(reg)
}
