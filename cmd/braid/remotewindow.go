//go:build !headless

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"fyne.io/fyne/v2"

	"braid/platform"
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
	return runRemoteWindow(ctx, back, modes, sources, nil, nil, stderr)
}

// chosenRemoteWindow is `braid` when Settings → Downloads run on chose
// another computer: the window over the downloads at link, with the
// settings' connections (conns) to switch back, taking hand-overs (inst)
// as the local window does. opened is false, the reason said on stderr,
// when link is no address to drive: the local window opens instead.
func chosenRemoteWindow(ctx context.Context, link string, conns *connKeeper, modes windowModes, sources []string, inst *platform.Instance, stderr io.Writer) (code int, opened bool) {
	back, err := remote.New(link, conns.secret(link))
	if err != nil {
		fmt.Fprintf(stderr, "braid: %v The window opens on this computer's downloads.\n", err)
		return 0, false
	}
	defer back.Close()
	conns.shown = back.Endpoint()
	return runRemoteWindow(ctx, back, modes, sources, conns, inst, stderr), true
}

// runRemoteWindow shows the window over back until it closes.
func runRemoteWindow(ctx context.Context, back *remote.Backend, modes windowModes, sources []string, conns *connKeeper, inst *platform.Instance, stderr io.Writer) int {
	a, w := newWindow(back, modes)
	w.Win.SetTitle("Braid — " + back.Endpoint())
	if conns != nil {
		w.Connections, conns.quit = conns, quitter(w)
		w.ShowConnections()
	}
	w.Start()
	w.OpenSources(sources)

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var served chan struct{}
	if inst != nil {
		served = make(chan struct{})
		go func() {
			defer close(served)
			_ = inst.Serve(ctx, func(h platform.Handoff) (platform.Answer, error) {
				if h.Add != nil || h.Wake {
					return platform.Answer{}, errRemoteHandoff
				}
				w.OpenSources(absSources(h.Args, h.Dir))
				fyne.Do(w.ShowWindow)
				return platform.Answer{}, nil
			})
		}()
	}
	modesEnded := runModes(ctx, w, modes, stderr)
	a.Run()
	cancel()
	if inst != nil {
		<-served
		_ = inst.Close()
	}
	code := modesEnded()
	w.Stop()
	return code
}

// errRemoteHandoff answers a browser's link or a queue's wake-up while the
// window drives another computer's downloads.
var errRemoteHandoff = errors.New("the open Braid window drives another computer's downloads now: open the link in that window, or choose this computer in Settings → Downloads run on")
