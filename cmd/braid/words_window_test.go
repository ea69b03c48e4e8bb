//go:build !headless

package main

import (
	"bytes"
	"context"
	"fmt"
	"image/png"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"braid/engine/explain"
	"braid/engine/metalink"
	"braid/queue"
)

// TestWindowWordsWithFailingMirrors runs the real binary on its own Xvfb
// display over a queue whose mirrors fail: one refuses connections (the
// job waits for the network), one answers 404 (the job fails), one
// hangs up mid-answer. The window writes every text it shows to a file
// (BRAID_DUMP_TEXTS); the test clicks each row (xdotool) so the details
// show its files, mirrors and Info, and asserts that no raw Go error text
// (dial tcp, Get ", connect:) is anywhere, while the sentences for each
// kind are there.
func TestWindowWordsWithFailingMirrors(t *testing.T) {
	t.Parallel()
	xdotool := needXdotool(t)
	xwd, err := exec.LookPath("xwd")
	if err != nil {
		t.Skip("xwd is not installed (Debian: apt-get install x11-apps); this test reads the real window's pixels with it")
	}
	r := newWindowRig(t, "downloads")
	// A port nobody listens on; a server without the file; a server that
	// hangs up before answering.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + l.Addr().String()
	l.Close()
	missing := httptest.NewServer(http.NotFoundHandler())
	defer missing.Close()
	hangup := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if c, _, err := w.(http.Hijacker).Hijack(); err == nil {
			c.Close()
		}
	}))
	defer hangup.Close()
	// The failing ones, then two finished before: one with no hash
	// published, one verified by its sha-256. Each row's details must
	// say what the row says.
	jobs := []struct {
		name, url, by string
		done          bool
		says          []string // in the texts while the row is selected
	}{
		{name: "refused.bin", url: closed + "/refused.bin", says: []string{"Problem", "Details", "The server refused the connection."}},
		{name: "missing.bin", url: missing.URL + "/missing.bin", says: []string{"Problem", "Details", "The server does not have the file (not found)."}},
		{name: "hangup.bin", url: hangup.URL + "/hangup.bin", says: []string{"Problem", "Details", "The connection to the server broke off."}},
		{name: "plain-done.bin", url: closed + "/plain-done.bin", done: true,
			says: []string{"Done · not verified (no hash published)", "Outcome\nnot verified (no hash published)", "Not verified", "Verification\nnot verified (no hash published)"}},
		{name: "hashed-done.iso", url: closed + "/hashed-done.iso", done: true, by: "sha-256",
			says: []string{"Done · verified (sha-256)", "Outcome\nverified (sha-256)", "Verified", "Verification\nverified (sha-256)"}},
	}
	q, err := queue.Open(r.state)
	if err != nil {
		t.Fatal(err)
	}
	for _, j := range jobs {
		doc := &metalink.Document{Version: 4, Files: []metalink.File{{
			Name: j.name, Size: 1 << 20,
			URLs: []metalink.URL{{URL: j.url, Priority: 1}},
		}}}
		id, err := q.Add(queue.NewJob{Source: j.url, Dest: r.dest, Doc: doc})
		if err == nil && j.done {
			// In its folder, as a finished download leaves it.
			if err = os.WriteFile(filepath.Join(r.dest, j.name), make([]byte, 1<<20), 0o644); err == nil {
				err = q.SetFile(id, j.name, queue.VerifiedBy(j.by))
			}
			if err == nil {
				_, err = q.Finish(id)
			}
		}
		if err != nil {
			q.Close()
			t.Fatal(err)
		}
	}
	q.Close()

	env := r.env()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	var out syncBuffer
	startWindow(ctx, t, r.bin, env, &out)
	xdo := xdoRunner(ctx, t, xdotool, env, &out)
	keep := func(name string) {
		dir := os.Getenv("BRAID_TEST_SHOTS")
		if dir == "" {
			return
		}
		cmd := exec.CommandContext(ctx, xwd, "-root", "-silent")
		cmd.Env = env
		b, err := cmd.Output()
		if err != nil {
			return
		}
		if img, err := decodeXWD(b); err == nil {
			var buf bytes.Buffer
			if png.Encode(&buf, img) == nil {
				_ = os.WriteFile(filepath.Join(dir, name+".png"), buf.Bytes(), 0o644)
			}
		}
	}
	read := func() string {
		b, _ := os.ReadFile(r.dump)
		return string(b)
	}
	// waitText waits until the dump holds every one of want.
	waitText := func(what string, want ...string) string {
		t.Helper()
		return waitWindowText(ctx, t, env, r.dump, &out, 90*time.Second, "words-", what, want...)
	}
	clean := func(what, texts string) {
		t.Helper()
		for _, line := range strings.Split(texts, "\n") {
			if f := explain.RawFragment(line); f != "" {
				t.Errorf("%s: the window shows raw error text %q: %q", what, f, line)
			}
		}
	}

	ids := strings.Fields(xdo("search", "--sync", "--name", "^Braid$"))
	if len(ids) == 0 {
		t.Fatalf("the window never showed\n%s", out.String())
	}
	wid := ids[0]
	texts := waitText("the queue",
		"Waiting: The server refused the connection.",
		"Failed: The server does not have the file (not found).",
		"The connection to the server broke off.")
	clean("the queue", texts)

	// Each row: click it, so the details show its files, mirrors and Info.
	var bars []bar
	const empty = 3 // the failing rows show an empty track; the done ones a full bar
	for end := time.Now().Add(30 * time.Second); len(bars) < empty && time.Now().Before(end); time.Sleep(200 * time.Millisecond) {
		cmd := exec.CommandContext(ctx, xwd, "-root", "-silent")
		cmd.Env = env
		b, err := cmd.Output()
		if err != nil {
			t.Fatalf("xwd: %v", err)
		}
		img, err := decodeXWD(b)
		if err != nil {
			t.Fatal(err)
		}
		bars = findBars(img, barTrack)
	}
	if len(bars) < empty {
		keep("words-no-rows")
		t.Fatalf("found %d rows with an empty track on the screen, want %d", len(bars), empty)
	}
	pitch := bars[1].y - bars[0].y
	rowY := func(i int) string { return strconv.Itoa(bars[0].y + i*pitch) }
	for i, j := range jobs {
		xdo("windowfocus", "--sync", wid)
		xdo("mousemove", "--sync", strconv.Itoa(bars[0].x0-60), rowY(i))
		xdo("click", "1")
		time.Sleep(450 * time.Millisecond)
		texts := waitText("row "+j.name, append([]string{"File\n" + j.name}, j.says...)...)
		if j.done && strings.Contains(texts, "Problem") {
			t.Errorf("%s: a finished job shows a problem:\n%s", j.name, texts)
		}
		if j.done && j.by == "" && slices.Contains(strings.Split(texts, "\n"), "Verified") {
			t.Errorf("%s: a file no hash checked is called Verified:\n%s", j.name, texts)
		}
		clean(j.name, texts)
		keep(fmt.Sprintf("words-row-%d", i))
	}
	// Slow (Ctrl+L) with no alternative limit set says so, and stays off.
	xdo("windowfocus", "--sync", wid)
	xdo("key", "ctrl+l")
	texts = waitText("slow", "No slower limit set", "none is set: it would change nothing")
	clean("slow", texts)
	keep("words-slow")
	xdo("key", "Escape")
	if strings.Contains(read(), "slow: ") {
		t.Error("Slow turned on with no alternative limit set")
	}

	if os.Getenv("BRAID_TEST_SHOTS") != "" {
		// For the eye: the last row's Info tab, then its Details open.
		// The places are the 1100×720 window's at the default split.
		xdo("mousemove", "--sync", strconv.Itoa(bars[0].x0-60), rowY(2))
		xdo("click", "1")
		time.Sleep(time.Second)
		xdo("mousemove", "--sync", "515", "452") // Info, right of the side panel
		xdo("click", "1")
		time.Sleep(time.Second)
		xdo("mousemove", "--sync", "500", "600")
		xdo("click", "--repeat", "15", "5") // scroll Info to its end: the problem
		time.Sleep(time.Second)
		keep("words-info")
		if at := os.Getenv("BRAID_TEST_DETAILS_AT"); at != "" {
			x, y, _ := strings.Cut(at, ",")
			xdo("mousemove", "--sync", x, y)
			xdo("click", "1")
			time.Sleep(time.Second)
			xdo("click", "--repeat", "15", "5")
			time.Sleep(time.Second)
			keep("words-details")
		}
	}
}
