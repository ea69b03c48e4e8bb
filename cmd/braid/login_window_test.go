//go:build !headless

package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"image/png"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"braid/engine/ftptest"
	"braid/engine/metalink"
	"braid/engine/netconf/netconftest"
	"braid/queue"
)

// windowShot keeps a screenshot of the real window's X display as
// NAME.png in the folder BRAID_TEST_SHOTS names; without one it does
// nothing. Every real-window test keeps its pictures this way.
func windowShot(ctx context.Context, t *testing.T, env []string, name string) {
	t.Helper()
	dir := os.Getenv("BRAID_TEST_SHOTS")
	xwd, err := exec.LookPath("xwd")
	if dir == "" || err != nil {
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

// waitWindowText waits up to limit until the texts a window running with
// BRAID_DUMP_TEXTS=dump showed hold every one of want, and returns them;
// else it keeps a screenshot (windowShot, named shot+what) and fails with
// what the window showed and printed (out).
func waitWindowText(ctx context.Context, t *testing.T, env []string, dump string, out *syncBuffer, limit time.Duration, shot, what string, want ...string) string {
	t.Helper()
	var texts string
	for end := time.Now().Add(limit); time.Now().Before(end); time.Sleep(250 * time.Millisecond) {
		b, _ := os.ReadFile(dump)
		texts = string(b)
		ok := texts != ""
		for _, w := range want {
			ok = ok && strings.Contains(texts, w)
		}
		if ok {
			return texts
		}
	}
	windowShot(ctx, t, env, shot+strings.ReplaceAll(what, " ", "-"))
	t.Fatalf("%s: the window never said %q; it shows:\n%s\n%s", what, want, texts, out.String())
	return ""
}

// pausedJob adds to the queue in state a paused job that downloads data
// as name from link into dest, with its sha-256.
func pausedJob(t *testing.T, state, dest, link, name string, data []byte) {
	t.Helper()
	q, err := queue.Open(state)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	sum := sha256.Sum256(data)
	doc := &metalink.Document{Version: 4, Files: []metalink.File{{
		Name: name, Size: int64(len(data)),
		Hashes: []metalink.Hash{{Type: "sha-256", Value: hex.EncodeToString(sum[:])}},
		URLs:   []metalink.URL{{URL: link, Priority: 1}},
	}}}
	id, err := q.Add(queue.NewJob{Source: link, Dest: dest, Doc: doc})
	if err == nil {
		err = q.Pause(id, "")
	}
	if err != nil {
		t.Fatal(err)
	}
}

// findRow finds the first row of the queue on the screen by its progress
// bar's track.
func findRow(ctx context.Context, t *testing.T, env []string) bar {
	t.Helper()
	for end := time.Now().Add(30 * time.Second); time.Now().Before(end); time.Sleep(200 * time.Millisecond) {
		cmd := exec.CommandContext(ctx, "xwd", "-root", "-silent")
		cmd.Env = env
		b, err := cmd.Output()
		if err != nil {
			t.Fatalf("xwd: %v", err)
		}
		img, err := decodeXWD(b)
		if err != nil {
			t.Fatal(err)
		}
		if bars := findBars(img, barTrack); len(bars) > 0 {
			return bars[0]
		}
	}
	windowShot(ctx, t, env, "no-row")
	t.Fatal("no row of the queue on the screen")
	return bar{}
}

// waitJob waits until the queue's last job is as ok wants it, reading
// `braid queue list --json`; it returns the list's text.
func waitJob(ctx context.Context, t *testing.T, bin string, env []string, state, what string, ok func(queueJob) bool) string {
	t.Helper()
	var last []byte
	for end := time.Now().Add(90 * time.Second); time.Now().Before(end); time.Sleep(300 * time.Millisecond) {
		cmd := exec.CommandContext(ctx, bin, "queue", "--state", state, "list", "--json")
		cmd.Env = env
		b, err := cmd.Output()
		if err != nil {
			t.Fatalf("queue list: %v", err)
		}
		last = b
		var js []queueJob
		if json.Unmarshal(b, &js) == nil && len(js) > 0 && ok(js[len(js)-1]) {
			return string(b)
		}
	}
	windowShot(ctx, t, env, "wait-"+strings.ReplaceAll(what, " ", "-"))
	t.Fatalf("%s: the queue says %s", what, last)
	return ""
}

// folderHolds names the files under dir that hold s.
func folderHolds(dir, s string) []string {
	var found []string
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		if b, err := os.ReadFile(p); err == nil && bytes.Contains(b, []byte(s)) {
			found = append(found, p)
		}
		return nil
	})
	return found
}

// TestWindowLoginPrompt runs the real binary on its own Xvfb display over
// a job whose file nginx keeps behind auth_basic. Resumed (Ctrl+R), the
// job stops on the server's 401 and the window asks for a user name and
// password; the test types them with xdotool as a hand would: first a
// wrong password, which the server refuses and the window asks again
// saying so, then the right one, and the file lands, its sha-256 checked.
// Then Add URL with another link behind the login: opening it asks for
// one, and the job made of it downloads with it.
// The session has no keyring (no D-Bus): the prompt says the password is
// kept until Braid closes. Then neither password is anywhere in the state
// folder (state.db, the log), in the window's output or in the texts it
// showed.
func TestWindowLoginPrompt(t *testing.T) {
	t.Parallel()
	xdotool := needXdotool(t)
	needXwd(t)
	const (
		user  = "ann"
		pass  = "Window-Typed-Pw-4711"
		wrong = "Not-The-Pw-0815"
	)
	data := bytes.Repeat([]byte("braid login prompt "), 40<<10)
	origin := netconftest.Nginx(t, map[string][]byte{"f.bin": data, "g.bin": data}, user, pass)
	r := newWindowRig(t, "downloads")
	link := origin.URL + "/basic/f.bin"
	pausedJob(t, r.state, r.dest, link, "f.bin", data)

	env := r.env()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	var out syncBuffer
	win := startWindow(ctx, t, r.bin, env, &out)
	xdo := xdoRunner(ctx, t, xdotool, env, &out)
	read := func() string { b, _ := os.ReadFile(r.dump); return string(b) }
	waitText := func(what string, want ...string) string {
		t.Helper()
		return waitWindowText(ctx, t, env, r.dump, &out, 60*time.Second, "login-", what, want...)
	}
	wid := strings.Fields(xdo("search", "--sync", "--name", "^Braid$"))[0]
	waitText("the queue", "f.bin")

	// Click the row (found by its progress bar's empty track) and resume
	// it.
	row := findRow(ctx, t, env)
	xdo("windowfocus", "--sync", wid)
	xdo("mousemove", "--sync", strconv.Itoa(row.x0-60), strconv.Itoa(row.y))
	xdo("click", "1")
	time.Sleep(450 * time.Millisecond)
	xdo("key", "ctrl+r")
	waitText("the first prompt", "asks for a user name and password.",
		"This system has no keyring (Secret Service): the password is kept only until Braid closes.")
	time.Sleep(300 * time.Millisecond)
	windowShot(ctx, t, env, "login-prompt")
	// A click inside the prompt (the middle of the window), then Escape:
	// the prompt closes and the job stays stopped; Resume asks again.
	xdo("mousemove", "--sync", "550", "360")
	xdo("click", "1")
	time.Sleep(300 * time.Millisecond)
	xdo("key", "Escape")
	for end := time.Now().Add(20 * time.Second); strings.Contains(read(), "asks for a user name and password."); time.Sleep(200 * time.Millisecond) {
		if time.Now().After(end) {
			windowShot(ctx, t, env, "login-escape")
			t.Fatalf("Escape after a click inside the prompt left it open\n%s", read())
		}
	}
	waitJob(ctx, t, r.bin, env, r.state, "the job stopped after Escape", func(j queueJob) bool { return j.State == "paused" || j.State == "failed" })
	xdo("mousemove", "--sync", strconv.Itoa(row.x0-60), strconv.Itoa(row.y))
	xdo("click", "1")
	time.Sleep(450 * time.Millisecond)
	xdo("key", "ctrl+r")
	waitText("the prompt again", "asks for a user name and password.")
	time.Sleep(300 * time.Millisecond)
	xdo("type", "--delay", "20", user)
	xdo("key", "Tab")
	xdo("type", "--delay", "20", wrong)
	xdo("key", "Return")

	waitText("the prompt after a refusal", "the server refused this user name and password. Try again.")
	time.Sleep(300 * time.Millisecond)
	windowShot(ctx, t, env, "login-refused")
	// The user name is kept; the focus is on the password.
	xdo("type", "--delay", "20", pass)
	xdo("key", "Return")

	got := filepath.Join(r.dest, "f.bin")
	for end := time.Now().Add(90 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		if b, err := os.ReadFile(got); err == nil && bytes.Equal(b, data) {
			break
		}
		if time.Now().After(end) {
			windowShot(ctx, t, env, "login-no-file")
			t.Fatalf("the file never landed after the login\n%s\n%s", read(), out.String())
		}
	}
	waitJob(ctx, t, r.bin, env, r.state, "the download after the login", func(j queueJob) bool {
		return j.State == "done" && j.Checked == "verified (sha-256)"
	})

	// Add URL with a link behind the login: opening it asks for one, and
	// the job made of it downloads with it.
	time.Sleep(1500 * time.Millisecond)
	if strings.Contains(read(), "asks for a user name and password.") {
		t.Fatal("the prompt is still shown")
	}
	openWithLoginByHand(ctx, t, r, &out, xdo, wid, origin.URL+"/basic/g.bin", "g.bin", "login-open", user, pass, data)

	quitWindow(ctx, t, xdo, env, wid, win, &out)

	for _, secret := range []string{pass, wrong} {
		if files := folderHolds(r.state, secret); len(files) > 0 {
			t.Errorf("the state folder holds a password typed in the prompt: %v", files)
		}
		if strings.Contains(out.String(), secret) {
			t.Errorf("the window's output holds a password typed in the prompt")
		}
		if strings.Contains(read(), secret) {
			t.Errorf("the texts the window showed hold a password typed in the prompt")
		}
	}
	if len(folderHolds(r.state, "f.bin")) == 0 {
		t.Error("the grep for passwords looks at nothing: the state folder does not even name the job's file")
	}
	if b, _ := os.ReadFile(filepath.Join(origin.Dir, "access.log")); !strings.Contains(string(b), "\"GET /basic/f.bin HTTP/1.1\" 401") ||
		!strings.Contains(string(b), " 206 ") && !strings.Contains(string(b), " 200 ") {
		t.Errorf("nginx did not see the 401 and then the download:\n%s", b)
	}
}

// TestWindowLoginPromptFTP: Add URL in the real window with an ftp link
// whose server takes no anonymous login asks for a user name and
// password, as an HTTP server's 401 does; typed with xdotool, the link
// opens with them and its job downloads with them. The password is then
// nowhere in the state folder, the window's output or its texts.
func TestWindowLoginPromptFTP(t *testing.T) {
	t.Parallel()
	xdotool := needXdotool(t)
	needXwd(t)
	const user, pass = "cy", "Window-FTP-Pw-2718"
	data := bytes.Repeat([]byte("braid ftp login prompt "), 20<<10)
	s := ftptest.New(t, ftptest.File("pub/h.bin", data), ftptest.User(user, pass))
	r := newWindowRig(t, "downloads")
	env := r.env()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var out syncBuffer
	win := startWindow(ctx, t, r.bin, env, &out)
	xdo := xdoRunner(ctx, t, xdotool, env, &out)
	wid := strings.Fields(xdo("search", "--sync", "--name", "^Braid$"))[0]
	time.Sleep(time.Second)
	openWithLoginByHand(ctx, t, r, &out, xdo, wid, s.URL("pub/h.bin"), "h.bin", "login-ftp-open", user, pass, data)
	windowShot(ctx, t, env, "login-ftp-done")
	quitWindow(ctx, t, xdo, env, wid, win, &out)
	b, _ := os.ReadFile(r.dump)
	if files := folderHolds(r.state, pass); len(files) > 0 || strings.Contains(out.String(), pass) || strings.Contains(string(b), pass) {
		t.Errorf("the password typed is in the state folder (%v), the window's output or its texts", files)
	}
	if len(folderHolds(r.state, "h.bin")) == 0 {
		t.Error("the grep for the password looks at nothing: the state folder does not even name the job's file")
	}
}

// openWithLoginByHand opens link with Add URL (Ctrl+N) in the real window
// as a hand would, waits for the login prompt (its screenshot named
// shot+"-prompt"), types user and pass into it, and waits until the job of
// the file name is done, its file in Downloads data.
func openWithLoginByHand(ctx context.Context, t *testing.T, r *windowRig, out *syncBuffer, xdo func(...string) string, wid, link, name, shot, user, pass string, data []byte) {
	t.Helper()
	env := r.env()
	xdo("windowfocus", "--sync", wid)
	xdo("key", "ctrl+n")
	time.Sleep(500 * time.Millisecond)
	xdo("type", "--delay", "5", link)
	xdo("key", "Return")
	waitWindowText(ctx, t, env, r.dump, out, 60*time.Second, shot+"-", "the prompt to open "+link, "asks for a user name and password.")
	time.Sleep(300 * time.Millisecond)
	windowShot(ctx, t, env, shot+"-prompt")
	xdo("type", "--delay", "20", user)
	xdo("key", "Tab")
	xdo("type", "--delay", "20", pass)
	xdo("key", "Return")
	waitJob(ctx, t, r.bin, env, r.state, name+" opened with the login", func(j queueJob) bool {
		return j.Name == name && j.State == "done"
	})
	if b, _ := os.ReadFile(filepath.Join(r.tmp, "home", "Downloads", name)); !bytes.Equal(b, data) {
		t.Errorf("%s, opened with the login, is not the server's file", name)
	}
}
