package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"time"

	"braid/platform"
)

// startWait bounds how long the native host waits for the window it
// started to listen.
const startWait = 20 * time.Second

// handLink hands a link from the browser to the running Braid. With none
// running, it starts the window (on the queue of state) and hands the
// link to it once it listens: the browser's "Download with Braid" means
// now, and a running Braid is what keeps the login cookies for the
// download (the host lives for one message; without a keyring, cookies
// it kept would die with it). Where no window can start (no display, a
// command-line build without braid-window, or it does not come up in
// time), it returns platform.ErrNotRunning and the host queues the link
// for the next start.
func handLink(ctx context.Context, sock, state string, l platform.Link) (platform.Answer, error) {
	a, err := platform.Forward(ctx, sock, platform.Handoff{Add: &l})
	if !errors.Is(err, platform.ErrNotRunning) {
		return a, err
	}
	exited, startErr := openWindow(state)
	if startErr != nil {
		return a, err
	}
	deadline := time.NewTimer(startWait)
	defer deadline.Stop()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return platform.Answer{}, ctx.Err()
		case <-deadline.C:
			return platform.Answer{}, platform.ErrNotRunning
		case <-exited:
			// It could not open (or another Braid took the socket
			// meanwhile): one last try, then the host queues the link.
			return platform.Forward(ctx, sock, platform.Handoff{Add: &l})
		case <-tick.C:
		}
		a, err := platform.Forward(ctx, sock, platform.Handoff{Add: &l})
		if !errors.Is(err, platform.ErrNotRunning) {
			return a, err
		}
	}
}

// openWindow starts Braid's window on the queue of state, apart from the
// host (its own session: the browser ends the host, not the window), with
// nothing on the host's stdout, which is the browser's pipe. exited is
// closed when the window's process ends.
func openWindow(state string) (exited <-chan struct{}, err error) {
	if runtime.GOOS != "windows" && runtime.GOOS != "darwin" && os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "" {
		return nil, errors.New("no display to open the window on")
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	var args []string
	if state != "" {
		args = append(args, "--state", state)
	}
	cmd := exec.Command(exe, args...)
	cmd.SysProcAttr = detached()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start the window: %w", err)
	}
	done := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(done)
	}()
	return done, nil
}
