//go:build !headless

package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"braid/queue"
	"braid/ui/remote"
)

// remoteSecretEnv holds --remote's secret when no file is given.
const remoteSecretEnv = "BRAID_REMOTE_SECRET"

// cmdRemoteWindow is `braid --remote URL [SOURCE...]`: the window over the
// downloads of an aria2 JSON-RPC daemon at URL (package ui/remote). It
// opens no local queue and takes no hand-overs: a second `braid SOURCE`
// goes to the user's own window, not to a remote one. The state folder
// still holds the log.
func cmdRemoteWindow(ctx context.Context, endpoint, secretFile, state string, args []string, stderr io.Writer) int {
	if endpoint == "" {
		fmt.Fprintln(stderr, "braid: --remote-secret-file needs --remote URL")
		return 2
	}
	s := secret{fileFlag: "--remote-secret-file", file: secretFile, env: remoteSecretEnv}
	key, err := s.get(os.Getenv)
	if err != nil {
		fmt.Fprintf(stderr, "braid: %v\n", err)
		return 2
	}
	if err := checkSources(args); err != nil {
		fmt.Fprintf(stderr, "braid: %v\n", err)
		return 2
	}
	cwd, _ := os.Getwd()
	sources := absSources(args, cwd)
	back, err := remote.New(endpoint, key)
	if err != nil {
		fmt.Fprintf(stderr, "braid: %v\n", err)
		return 2
	}
	defer back.Close()

	var modes windowModes = noModes{}
	if testModes != nil {
		if modes, err = testModes(os.Getenv); err != nil {
			fmt.Fprintf(stderr, "braid: %v\n", err)
			return 2
		}
	}
	if why := noDisplay(os.Getenv); why != "" {
		fmt.Fprintf(stderr, "braid: %s\n", why)
		return 1
	}
	if dir, err := queue.Dir(state); err == nil {
		if closeLog, err := openLog(dir); err == nil {
			defer closeLog()
		}
	}

	a, w := newWindow(back, modes)
	w.Win.SetTitle("Braid — " + back.Endpoint())
	w.Start()
	w.OpenSources(sources)

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	modesEnded := runModes(ctx, w, modes, stderr)
	a.Run()
	cancel()
	code := modesEnded()
	w.Stop()
	return code
}
