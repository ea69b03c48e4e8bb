//go:build !headless

package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"braid/queue"
)

// TestWindowListsALinkThatFails: add first, reach later. One plain link
// whose server answers 404, given alone, is listed as a failed job with
// its reason in a sentence, and a note says so, whichever way it comes
// into the real window (Xvfb, xdotool): typed into Add URL (Ctrl+N) and
// handed over by a second start, as a double-click or a browser does. It
// was an error dialog that left nothing in the list.
func TestWindowListsALinkThatFails(t *testing.T) {
	t.Parallel()
	xdotool := needXdotool(t)
	needXwd(t)
	r := newWindowRig(t, "downloads")
	srv := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(srv.Close)
	typed, handed := srv.URL+"/pub/typed.iso", srv.URL+"/pub/handed.iso"

	env := r.env()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	var out syncBuffer
	startWindow(ctx, t, r.bin, env, &out)
	xdo := xdoRunner(ctx, t, xdotool, env, &out)
	wid := strings.Fields(xdo("search", "--sync", "--name", "^Braid$"))[0]
	texts := func() string {
		b, _ := os.ReadFile(r.dump)
		return string(b)
	}
	// waitJob waits for link's job to be listed failed, and for the
	// window to say so.
	waitJob := func(how, link, name string) {
		t.Helper()
		var j queue.Job
		found := false
		for end := time.Now().Add(60 * time.Second); time.Now().Before(end); time.Sleep(250 * time.Millisecond) {
			q, err := queue.Open(r.state)
			if err != nil {
				continue
			}
			list, _ := q.List()
			q.Close()
			for _, x := range list {
				if x.Source == link {
					j, found = x, true
				}
			}
			s := texts()
			if found && j.State == queue.Failed && strings.Contains(s, "Added, and failed: The server does not have the file") &&
				strings.Contains(s, name) {
				windowShot(ctx, t, env, "unreadlink-"+how)
				return
			}
		}
		windowShot(ctx, t, env, "unreadlink-"+how+"-timeout")
		t.Fatalf("%s: the job of %s: listed %v, %+v; want failed, with a note\n%s\n%s", how, link, found, j, texts(), out.String())
	}

	// The window is drawn (its toolbar's Add URL) before it takes keys.
	waitWindowText(ctx, t, env, r.dump, &out, 60*time.Second, "unreadlink-", "the window", "Add URL")
	base := strings.Count(texts(), "Add URL") // the toolbar says it too
	xdo("windowfocus", "--sync", wid)
	xdo("key", "ctrl+n")
	for end := time.Now().Add(30 * time.Second); strings.Count(texts(), "Add URL") <= base && time.Now().Before(end); {
		time.Sleep(200 * time.Millisecond)
	}
	time.Sleep(300 * time.Millisecond)
	xdo("type", "--delay", "20", typed)
	xdo("key", "Return")
	waitJob("typed", typed, "typed.iso")
	xdo("key", "Escape")

	cmd := exec.CommandContext(ctx, r.bin, handed)
	cmd.Env = env
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("handing %s to the window: %v\n%s", handed, err, b)
	}
	waitJob("handed-over", handed, "handed.iso")
}
