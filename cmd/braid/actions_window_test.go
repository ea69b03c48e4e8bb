//go:build !headless

package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"braid/engine/metalink"
	"braid/engine/mirrortest"
	"braid/engine/torrent/torrenttest"
	"braid/queue"
)

// actionWindow is a real window on its own Xvfb display for the tests of
// "every action says what it did": its environment, its xdotool, and
// the texts it shows (BRAID_DUMP_TEXTS).
type actionWindow struct {
	t         *testing.T
	ctx       context.Context
	bin, wid  string
	env       []string
	state     string
	dump      string
	out       *syncBuffer
	xdo       func(args ...string) string
	shotNames string
}

// startActionWindow starts the real window of r, with extra
// environment; it skips without xdotool or xwd.
func startActionWindow(t *testing.T, r *windowRig, shots string, extra ...string) *actionWindow {
	t.Helper()
	xdotool := needXdotool(t)
	needXwd(t)
	env := r.env(extra...)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	t.Cleanup(cancel)
	var out syncBuffer
	startWindow(ctx, t, r.bin, env, &out)
	a := &actionWindow{t: t, ctx: ctx, bin: r.bin, env: env, state: r.state, dump: r.dump, out: &out, shotNames: shots}
	a.xdo = xdoRunner(ctx, t, xdotool, env, &out)
	ids := strings.Fields(a.xdo("search", "--sync", "--name", "^Braid$"))
	if len(ids) == 0 {
		t.Fatalf("the window never showed\n%s", out.String())
	}
	a.wid = ids[0]
	return a
}

// waitText waits until the window shows every one of want.
func (a *actionWindow) waitText(what string, want ...string) string {
	a.t.Helper()
	return waitWindowText(a.ctx, a.t, a.env, a.dump, a.out, 60*time.Second, a.shotNames+"-", what, want...)
}

// waitGone waits until the window no longer shows text.
func (a *actionWindow) waitGone(what, text string) {
	a.t.Helper()
	for end := time.Now().Add(30 * time.Second); time.Now().Before(end); time.Sleep(250 * time.Millisecond) {
		if b, _ := os.ReadFile(a.dump); !strings.Contains(string(b), text) {
			return
		}
	}
	windowShot(a.ctx, a.t, a.env, a.shotNames+"-"+strings.ReplaceAll(what, " ", "-"))
	a.t.Fatalf("%s: the window still shows %q", what, text)
}

// titled reports whether the window shows a line that is text, n times
// at least, within limit: the toolbar's Add URL and the dialog's title.
func (a *actionWindow) titled(text string, n int, limit time.Duration) bool {
	for end := time.Now().Add(limit); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		b, _ := os.ReadFile(a.dump)
		if strings.Count("\n"+string(b), "\n"+text+"\n") >= n {
			return true
		}
	}
	return false
}

// shot keeps a screenshot after the window had time to draw.
func (a *actionWindow) shot(name string) {
	time.Sleep(400 * time.Millisecond)
	windowShot(a.ctx, a.t, a.env, a.shotNames+"-"+name)
}

// key focuses the window and presses keys.
func (a *actionWindow) key(keys ...string) {
	a.xdo("windowfocus", "--sync", a.wid)
	for _, k := range keys {
		a.xdo("key", k)
		time.Sleep(150 * time.Millisecond)
	}
}

// addLinks types links into Add URL, one a line (Shift+Enter between
// them), and presses Enter.
func (a *actionWindow) addLinks(links ...string) {
	a.t.Helper()
	// A key sent before the window takes keys is lost: Ctrl+N until Add
	// URL shows.
	for end := time.Now().Add(30 * time.Second); ; {
		a.key("ctrl+n")
		if a.titled("Add URL", 2, 3*time.Second) {
			break
		}
		if time.Now().After(end) {
			a.shot("no-add-url")
			a.t.Fatalf("Ctrl+N never showed Add URL\n%s", a.out.String())
		}
	}
	time.Sleep(300 * time.Millisecond)
	for i, l := range links {
		if i > 0 {
			a.xdo("key", "shift+Return")
		}
		a.xdo("type", "--delay", "5", l)
	}
	a.xdo("key", "Return")
}

// jobs is `braid queue list --json`.
func (a *actionWindow) jobs() []queueJob { return listJobs(a.t, a.bin, a.state) }

// TestWindowAddLinksSayWhatBecameOfEach drives Add URL in the real window
// with three links of three fates, typed one a line: one whose server
// cannot be reached (a closed port), one the server does not have (404),
// one behind a login (401). Each becomes a job at once, in the order
// given, and one dialog says link by link what became of it; the login
// prompt asks for the third link's login, and with it the file lands.
// Then the first link once more: the window selects its job and says it
// is already in the queue, and adds no second job.
func TestWindowAddLinksSayWhatBecameOfEach(t *testing.T) {
	t.Parallel()
	r := newWindowRig(t, "downloads")
	const user, pass = "ann", "Add-Many-Pw-2718"
	secret := mirrortest.Bytes(200<<10, 31)
	login := mirrortest.New(t, secret, mirrortest.Path("/secret.bin"), mirrortest.BasicAuth(user, pass))
	missing := mirrortest.New(t, []byte("gone"), mirrortest.Path("/missing.bin"), mirrortest.Status(404))
	unreachable := "http://" + freeAddr(t) + "/pub/later.bin"

	a := startActionWindow(t, r, "addlinks")
	a.waitText("start", "Add URL")
	a.addLinks(unreachable, missing.URL(), login.URL())

	texts := a.waitText("the result of the three links",
		unreachable, missing.URL(), login.URL(),
		"Added as later.bin. The server cannot be reached now; the download waits and tries again.",
		"Added, and failed: The server does not have the file (not found). Resume tries it again.",
		"Added; it waits for a login: "+login.Host()+" asks for a user name and password.",
		// the login prompt, over the result
		"\n"+login.Host()+" asks for a user name and password.\n")
	if strings.Contains(texts, "The server asks for a login, or refused the one given.\n") && !strings.Contains(texts, "Added;") {
		t.Errorf("the window says one link's error for all three:\n%s", texts)
	}
	a.shot("result-and-login")

	js := a.jobs()
	if len(js) != 3 {
		t.Fatalf("the queue holds %d jobs, want one a link: %+v", len(js), js)
	}
	for i, want := range []string{"later.bin", "missing.bin", "secret.bin"} {
		if js[i].Name != want {
			t.Errorf("job %d is %q, want %q (the order given)", i, js[i].Name, want)
		}
	}
	if js[0].State == "failed" {
		t.Errorf("the unreachable link failed (%s); it waits and tries again", js[0].Error)
	}
	if js[1].State != "failed" || !strings.Contains(js[1].Error, "404") {
		t.Errorf("the 404 link: %s, %q; want failed with its reason", js[1].State, js[1].Error)
	}

	// The login prompt has the focus: the user name, then the password.
	a.xdo("type", "--delay", "20", user)
	a.xdo("key", "Tab")
	a.xdo("type", "--delay", "20", pass)
	a.xdo("key", "Return")
	waitJob(a.ctx, t, r.bin, a.env, r.state, "the link behind the login", func(j queueJob) bool {
		return j.Name == "secret.bin" && j.State == "done"
	})
	if b, err := os.ReadFile(filepath.Join(r.tmp, "home", "Downloads", "secret.bin")); err != nil || !bytes.Equal(b, secret) {
		t.Errorf("secret.bin after the login: %v, right bytes %v", err, bytes.Equal(b, secret))
	}
	a.shot("result-after-login")
	a.key("Escape")
	a.waitGone("the result closed", "Added as later.bin.")

	// The first link again: selected, said, not added.
	a.addLinks(unreachable)
	a.waitText("the link already in the queue", "Already in the queue: later.bin.")
	a.shot("url-in-queue")
	if js := a.jobs(); len(js) != 3 {
		t.Errorf("a link already in the queue made a job: %+v", js)
	}
	a.key("Escape")
	if strings.Contains(a.out.String(), pass) {
		t.Error("the window's output holds the password")
	}
}

// TestWindowRemoveData removes two unfinished downloads in the real
// window, one as it was (its .part stays on the disk) and one with "Also
// delete the downloaded data" ticked (its .part is gone, and the window
// says it deleted it).
func TestWindowRemoveData(t *testing.T) {
	t.Parallel()
	r := newWindowRig(t, "downloads")
	data := mirrortest.Bytes(64<<10, 7)
	for _, name := range []string{"keep.bin", "gone.bin"} {
		pausedJob(t, r.state, r.dest, "http://127.0.0.1:9/"+name, name, data)
		if err := os.WriteFile(filepath.Join(r.dest, name+".part"), data[:20<<10], 0o644); err != nil {
			t.Fatal(err)
		}
	}

	a := startActionWindow(t, r, "remove")
	a.waitText("the queue", "keep.bin", "gone.bin")
	row := findRow(a.ctx, t, a.env)
	clickFirst := func() {
		a.xdo("windowfocus", "--sync", a.wid)
		a.xdo("mousemove", "--sync", strconv.Itoa(row.x0-60), strconv.Itoa(row.y))
		a.xdo("click", "1")
		time.Sleep(450 * time.Millisecond)
	}

	// keep.bin: Delete, the box unticked, Enter.
	clickFirst()
	a.key("Delete")
	a.waitText("the remove dialog", "Remove “keep.bin” from the queue?", "Also delete the downloaded data",
		"Files already downloaded, finished or not, stay where they are.")
	a.shot("dialog")
	a.key("Return")
	a.waitGone("keep.bin removed", "keep.bin")
	if _, err := os.Stat(filepath.Join(r.dest, "keep.bin.part")); err != nil {
		t.Errorf("removed without its data, keep.bin's .part is gone: %v", err)
	}

	// gone.bin: Delete, tick the box (a click on its words, just left of
	// the middle of the dialog, which is the middle of the window), Enter.
	clickFirst()
	a.key("Delete")
	a.waitText("the second remove dialog", "Remove “gone.bin” from the queue?")
	time.Sleep(400 * time.Millisecond)
	var w, h int
	for _, l := range strings.Fields(a.xdo("getwindowgeometry", "--shell", a.wid)) {
		if v, ok := strings.CutPrefix(l, "WIDTH="); ok {
			w, _ = strconv.Atoi(v)
		}
		if v, ok := strings.CutPrefix(l, "HEIGHT="); ok {
			h, _ = strconv.Atoi(v)
		}
	}
	a.xdo("mousemove", "--window", a.wid, "--sync", strconv.Itoa(w/2-100), strconv.Itoa(h/2-3))
	a.xdo("click", "1")
	a.waitText("the box ticked", "The unfinished data (.part) and the finished files Braid downloaded are deleted from the disk")
	a.shot("dialog-ticked")
	a.key("Return")
	a.waitText("what was deleted", "Deleted from "+r.dest+": gone.bin.part.")
	a.shot("deleted")
	if _, err := os.Stat(filepath.Join(r.dest, "gone.bin.part")); !os.IsNotExist(err) {
		t.Errorf("removed with its data, gone.bin's .part is still on the disk: %v", err)
	}
	if js := a.jobs(); len(js) != 0 {
		t.Errorf("the queue after the two removes: %+v", js)
	}
}

// TestWindowFailedOpen opens a finished file for which the desktop has
// no application (a stand-in xdg-open on PATH that fails as xdg-open
// does, "no method available"): the window says why, with the opener's
// words under Details, and its Show in folder opens the file's folder.
func TestWindowFailedOpen(t *testing.T) {
	t.Parallel()
	r := newWindowRig(t, "downloads")
	fake := filepath.Join(r.tmp, "bin")
	opened := filepath.Join(r.tmp, "opened.txt")
	for _, d := range []string{r.dest, fake} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	// xdg-open as on a desktop with no application for the type: a folder
	// (Fyne hands it a file:// URL) opens, a file does not.
	script := "#!/bin/sh\ncase \"$1\" in file://*) printf '%s\\n' \"$1\" >> " + opened + "; exit 0;; esac\n" +
		"echo \"xdg-open: no method available for opening '$1'\" >&2\nexit 3\n"
	if err := os.WriteFile(filepath.Join(fake, "xdg-open"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	data := mirrortest.Bytes(64<<10, 7)
	if err := os.WriteFile(filepath.Join(r.dest, "open.xyz"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	q, err := queue.Open(r.state)
	if err != nil {
		t.Fatal(err)
	}
	doc := &metalink.Document{Version: 4, Files: []metalink.File{{Name: "open.xyz", Size: int64(len(data)),
		URLs: []metalink.URL{{URL: "http://127.0.0.1:9/open.xyz", Priority: 1}}}}}
	id, err := q.Add(queue.NewJob{Source: "http://127.0.0.1:9/open.xyz", Dest: r.dest, Doc: doc})
	if err == nil {
		_, err = q.Finish(id)
	}
	q.Close()
	if err != nil {
		t.Fatal(err)
	}

	a := startActionWindow(t, r, "open", "PATH="+fake+string(os.PathListSeparator)+os.Getenv("PATH"))
	a.waitText("the queue", "open.xyz")
	row := findRow(a.ctx, t, a.env)
	a.xdo("windowfocus", "--sync", a.wid)
	a.xdo("mousemove", "--sync", strconv.Itoa(row.x0-60), strconv.Itoa(row.y))
	a.xdo("click", "1")
	time.Sleep(450 * time.Millisecond)
	a.key("Return") // opens the selected finished file
	a.waitText("the failed open", "Cannot open the file",
		"The system could not open “open.xyz”: it may have no application for this kind of file.", "Show in folder")
	a.shot("open-failed")
	a.key("Return") // Show in folder
	for end := time.Now().Add(15 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		b, _ := os.ReadFile(opened)
		if strings.Contains(string(b), filepath.ToSlash(r.dest)) {
			break
		}
		if time.Now().After(end) {
			t.Fatalf("Show in folder did not open %s (the opener got %q)\n%s", r.dest, b, a.out.String())
		}
	}
}

// TestWindowQuitWhileSeeding adds a torrent by its magnet link in the
// real window, beside a slow HTTP download, and asks to quit (Ctrl+Q)
// three times: with the download running only, with both, and with the
// torrent seeding only. Each time the dialog's title and body name what
// runs and what seeds, and nothing else.
//
// It takes about 40 s: the torrent's metadata and pieces come from a
// real peer, and the third question waits for the slow download to end.
func TestWindowQuitWhileSeeding(t *testing.T) {
	t.Parallel()
	r := newWindowRig(t, "downloads")
	src := filepath.Join(r.tmp, "seed")
	files := []torrenttest.File{{Path: "a.bin", Data: mirrortest.Bytes(300<<10, 51)}, {Path: "b.txt", Data: mirrortest.Bytes(4000, 52)}}
	mi := torrenttest.Make(t, src, "braid-seed", 64<<10, files)
	peer := torrenttest.Seed(t, src, mi)
	ih := mi.HashInfoBytes().HexString()
	magnet := fmt.Sprintf("magnet:?xt=urn:btih:%s&dn=braid-seed&x.pe=%s", ih, peer)
	slowData := mirrortest.Bytes(3<<20, 53)
	slow := mirrortest.New(t, slowData, mirrortest.Path("/slow.bin"), mirrortest.Rate(100<<10))

	q, err := queue.Open(r.state)
	if err != nil {
		t.Fatal(err)
	}
	// Seed on after the download, with no goal that ends it in the test.
	err = q.UpdateSettings(func(st *queue.Settings) { st.Torrent = queue.TorrentSettings{SeedRatio: 100, Discovery: false} })
	q.Close()
	if err != nil {
		t.Fatal(err)
	}

	a := startActionWindow(t, r, "quit")
	a.waitText("start", "Add URL")

	// A download running only.
	a.addLinks(slow.URL())
	waitJob(a.ctx, t, r.bin, a.env, r.state, "the slow download runs", func(j queueJob) bool { return j.State == "running" })
	a.key("ctrl+q")
	texts := a.waitText("the quit dialog while downloading", "Quit while downloading?", "1 download running.",
		"Quitting pauses the running downloads and keeps what they fetched; Resume continues them where they left off.")
	if strings.Contains(texts, "seed") {
		t.Errorf("nothing seeds, and the quit dialog speaks of seeding:\n%s", texts)
	}
	a.shot("downloading")
	a.key("Escape")
	a.waitGone("the quit dialog closed", "Quit while downloading?")

	// The torrent: its magnet, the picker, Enter; it downloads and seeds.
	a.addLinks(magnet)
	a.waitText("the picker", "a.bin", "b.txt")
	time.Sleep(time.Second)
	a.key("Return")
	a.waitText("the torrent seeds", "1 seeding")
	if js := a.jobs(); len(js) != 2 || js[0].State != "running" {
		t.Fatalf("want the slow download running beside the torrent: %+v", js)
	}
	a.key("ctrl+q")
	a.waitText("the quit dialog while both", "Quit while downloading and seeding?", "1 download running, 1 torrent seeding.",
		"Quitting pauses the running downloads", "Quitting stops the seeding; it goes on when Braid starts again.")
	a.shot("both")
	a.key("Escape")
	a.waitGone("the quit dialog closed", "Quit while downloading and seeding?")

	// The slow download ends: the torrent seeds alone.
	for end := time.Now().Add(2 * time.Minute); ; time.Sleep(500 * time.Millisecond) {
		if js := a.jobs(); len(js) == 2 && js[0].State == "done" {
			break
		}
		if time.Now().After(end) {
			t.Fatalf("the slow download never ended: %+v", a.jobs())
		}
	}
	a.key("ctrl+q") // the dialog counts the queue as it is now
	texts = a.waitText("the quit dialog while seeding", "Quit while seeding?", "1 torrent seeding.",
		"Quitting stops the seeding; it goes on when Braid starts again.")
	if strings.Contains(texts, "download running") || strings.Contains(texts, "Downloads are running") {
		t.Errorf("only a torrent seeds, and the quit dialog says downloads run:\n%s", texts)
	}
	a.shot("seeding")
	a.key("Escape")
	a.waitGone("the quit dialog closed", "Quit while seeding?")
}

// TestWindowMagnetInQueue adds a torrent by its magnet link in the real
// window and then the same torrent's magnet, spelled otherwise: the
// window selects its job and says it is in the queue already, with no
// picker and no second job (which could only fail, "this torrent is
// already running").
func TestWindowMagnetInQueue(t *testing.T) {
	t.Parallel()
	r := newWindowRig(t, "downloads")
	src := filepath.Join(r.tmp, "seed")
	files := []torrenttest.File{{Path: "a.bin", Data: mirrortest.Bytes(300<<10, 61)}, {Path: "b.txt", Data: mirrortest.Bytes(4000, 62)}}
	mi := torrenttest.Make(t, src, "braid-seed", 64<<10, files)
	peer := torrenttest.Seed(t, src, mi)
	ih := mi.HashInfoBytes().HexString()
	magnet := fmt.Sprintf("magnet:?xt=urn:btih:%s&dn=braid-seed&x.pe=%s", ih, peer)
	q, err := queue.Open(r.state)
	if err != nil {
		t.Fatal(err)
	}
	err = q.UpdateSettings(func(st *queue.Settings) { st.Torrent = queue.TorrentSettings{SeedRatio: 100, Discovery: false} })
	q.Close()
	if err != nil {
		t.Fatal(err)
	}

	a := startActionWindow(t, r, "magnet")
	a.waitText("start", "Add URL")
	a.addLinks(magnet)
	a.waitText("the picker", "a.bin", "b.txt")
	time.Sleep(time.Second)
	a.key("Return")
	a.waitText("the torrent seeds", "1 seeding")

	// The same torrent's magnet, spelled otherwise: no picker, no job.
	again := fmt.Sprintf("magnet:?xt=urn:btih:%s&dn=another-name", strings.ToUpper(ih))
	a.addLinks(again)
	a.waitText("the magnet already in the queue", "Already in the queue: braid-seed")
	a.shot("magnet-in-queue")
	if strings.Contains(string(must(os.ReadFile(a.dump))), "Fetching metadata") {
		t.Error("the magnet of a torrent in the queue fetched its metadata again")
	}
	time.Sleep(2 * time.Second)
	if js := a.jobs(); len(js) != 1 {
		t.Errorf("the magnet of a torrent in the queue made a job: %+v", js)
	}
	for _, j := range a.jobs() {
		if j.State == "failed" {
			t.Errorf("job %s failed: %s", j.Name, j.Error)
		}
	}
}
