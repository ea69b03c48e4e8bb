//go:build !headless

package main

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"braid/engine/explain"
	"braid/engine/mirrortest"
)

// TestWindowAddFirstReachLater drives the real window (Xvfb, xdotool)
// as a user would: Add URL, a link whose server cannot be reached (a
// closed port), Enter. The job is in the list at once, waiting, with the
// sentence for why and its next try, and no raw error text; when the
// server comes up, the file lands and the row says Done.
func TestWindowAddFirstReachLater(t *testing.T) {
	t.Parallel()
	xdotool := needXdotool(t)
	tmp, bin, display := realWindow(t)
	state := filepath.Join(tmp, "state")
	dump := filepath.Join(tmp, "texts.txt")
	dest := filepath.Join(tmp, "home", "Downloads")
	for _, d := range []string{filepath.Join(tmp, "home"), filepath.Join(tmp, "run")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	addr := freeAddr(t)
	link := "http://" + addr + "/pub/later.bin"

	env := windowEnv(display, tmp, state, "BRAID_DUMP_TEXTS="+dump)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	var out syncBuffer
	startWindow(ctx, t, bin, env, &out)
	xdo := xdoRunner(ctx, t, xdotool, env, &out)
	ids := strings.Fields(xdo("search", "--sync", "--name", "^Braid$"))
	if len(ids) == 0 {
		t.Fatalf("the window never showed\n%s", out.String())
	}
	wid := ids[0]
	read := func() string {
		b, _ := os.ReadFile(dump)
		return string(b)
	}
	waitText := func(what string, limit time.Duration, want ...*regexp.Regexp) string {
		t.Helper()
		var texts string
		for end := time.Now().Add(limit); time.Now().Before(end); time.Sleep(200 * time.Millisecond) {
			texts = read()
			ok := texts != ""
			for _, w := range want {
				ok = ok && w.MatchString(texts)
			}
			if ok {
				return texts
			}
		}
		windowShot(ctx, t, env, "addfirst-"+strings.ReplaceAll(what, " ", "-"))
		t.Fatalf("%s: the window never said %q; it shows:\n%s\n%s", what, want, texts, out.String())
		return ""
	}
	waitText("start", time.Minute, regexp.MustCompile(`Add URL`))

	// Add URL (Ctrl+N), the link typed, Enter.
	xdo("windowfocus", "--sync", wid)
	xdo("key", "ctrl+n")
	time.Sleep(time.Second) // the dump of texts follows the queue, not a dialog: give it time to show
	windowShot(ctx, t, env, "addfirst-dialog")
	xdo("type", "--delay", "10", link)
	added := time.Now()
	xdo("key", "Return")

	// At once: the job, waiting, the sentence for the refused connection
	// and the next try.
	texts := waitText("the waiting job", 30*time.Second,
		regexp.MustCompile(`(?m)^later\.bin$`),
		regexp.MustCompile(`Waiting: The server refused the connection\.`),
		regexp.MustCompile(`next try in \d+ s`),
		// The row and the count agree with the detail: waiting, not queued.
		regexp.MustCompile(`\b1 waiting\b`))
	if d := time.Since(added); d > 20*time.Second {
		t.Errorf("the job showed %s after Enter, want at once", d.Round(time.Second))
	}
	windowShot(ctx, t, env, "addfirst-waiting")
	for _, line := range strings.Split(texts, "\n") {
		if f := explain.RawFragment(line); f != "" {
			t.Errorf("the window shows raw error text %q: %q", f, line)
		}
	}
	// The queue agrees: the job waits with a next try.
	js := listJobs(t, bin, state)
	if len(js) != 1 || js[0].Name != "later.bin" || js[0].State == "failed" {
		t.Fatalf("the queue holds %+v, want later.bin waiting", js)
	}

	// The server comes up: the next try fetches the file.
	data := mirrortest.Bytes(300<<10, 11)
	l, err := net.Listen("tcp", addr)
	if err != nil {
		t.Skipf("the port was taken meanwhile: %v", err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.ServeContent(w, r, "later.bin", time.Unix(0, 0), bytes.NewReader(data))
	})}
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })
	for end := time.Now().Add(3 * time.Minute); ; time.Sleep(500 * time.Millisecond) {
		if js := listJobs(t, bin, state); len(js) == 1 && js[0].State == "done" {
			break
		}
		if time.Now().After(end) {
			windowShot(ctx, t, env, "addfirst-not-done")
			t.Fatalf("the job never ended: %+v\n%s", listJobs(t, bin, state), out.String())
		}
	}
	b, err := os.ReadFile(filepath.Join(dest, "later.bin"))
	if err != nil || !bytes.Equal(b, data) {
		t.Fatalf("later.bin: %v, right bytes %v", err, bytes.Equal(b, data))
	}
	// The window says so.
	waitText("the file landed", 30*time.Second, regexp.MustCompile(`Done · not verified`))
	windowShot(ctx, t, env, "addfirst-done")
}
