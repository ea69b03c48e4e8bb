package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"braid/nativehost"
	"braid/platform"
	"braid/queue"
)

// serveLinks makes `braid queue run` the user's running Braid for the
// browsers' native host, as the window is: it listens on the user's
// socket and adds the links handed over to the queue it runs, keeping
// their login cookies for its session (wake, when not nil, starts them at
// once; dir, when not "", is the folder for links that name none). A
// window opened meanwhile is told it is elsewhere and opens beside it.
// When another Braid holds the socket, queue run goes on without it. The
// returned stop ends the listening and waits for the answers under way.
func serveLinks(ctx context.Context, q *queue.Queue, wake func(), dir string, w io.Writer) (stop func()) {
	in, err := platform.Listen(platform.SocketPath(os.Getenv))
	if errors.Is(err, platform.ErrRunning) {
		return func() {} // the window, say: it takes them
	}
	if err != nil {
		fmt.Fprintf(w, "the browser's links cannot reach this queue run: %v\n", err)
		return func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = in.Serve(ctx, func(h platform.Handoff) (platform.Answer, error) {
			switch {
			case h.Add != nil:
				l := *h.Add
				if l.Dir == "" {
					l.Dir = dir
				}
				a, err := nativehost.Take(ctx, q, l, nativehost.AddOptions{Wake: wake})
				if err == nil {
					// The link and its cookies stay out of the log.
					fmt.Fprintf(w, "job %d %s: added from the browser\n", a.Job, a.Name)
					if a.Warning != "" {
						fmt.Fprintln(w, a.Warning)
					}
				}
				return a, err
			case h.Wake:
				if wake != nil {
					wake()
				}
				return platform.Answer{}, nil
			}
			return platform.Answer{}, fmt.Errorf("%w: braid queue run runs the queue of %s headless; it opens no window",
				platform.ErrElsewhere, q.Path())
		})
	}()
	return func() {
		cancel()
		<-done
		_ = in.Close()
	}
}
