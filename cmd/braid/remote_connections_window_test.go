//go:build !headless

package main

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"braid/engine/mirrortest"
	"braid/internal/testkit"
	"braid/queue"
	"braid/ui"
)

// keyringBus starts a private D-Bus session bus and a GNOME Keyring
// daemon serving the Secret Service on it, in env (the window's), and
// returns the variable that points a process at it: the window's secrets
// then go to a real system keyring, as on a desktop.
func keyringBus(t *testing.T, env []string) string {
	t.Helper()
	for _, p := range []string{"dbus-daemon", "gnome-keyring-daemon"} {
		if _, err := exec.LookPath(p); err != nil {
			t.Skipf("%s is not installed (the setup step installs dbus-daemon and gnome-keyring): %v", p, err)
		}
	}
	run := t.TempDir()
	bus := exec.Command("dbus-daemon", "--session", "--nofork", "--print-address=1", "--address=unix:path="+run+"/bus")
	bus.Env = env
	out, err := bus.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := bus.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = bus.Process.Kill(); _ = bus.Wait() })
	addr, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("dbus-daemon gave no address: %v", err)
	}
	v := "DBUS_SESSION_BUS_ADDRESS=" + strings.TrimSpace(addr)
	kr := exec.Command("gnome-keyring-daemon", "--foreground", "--components=secrets", "--unlock")
	kr.Env = append(env, v)
	kr.Stdin = strings.NewReader("login-password")
	if err := kr.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = kr.Process.Kill(); _ = kr.Wait() })
	return v
}

// Settings → Downloads run on (a tab of its own in the dialog's list of
// tabs, all of them in view) → Another computer, with an aria2c's address
// and secret, saved: the same window (its X window ID, place and size)
// shows the aria2c's downloads, its row there; the secret is in the
// keyring, not in the state folder. The side panel lists This computer
// and the aria2c, the aria2c marked; a click on This computer shows this
// computer's queue again in the same window, and the choice is kept.
func TestRemoteConnectionsWindow(t *testing.T) {
	r := newWindowRig(t, "dest")
	xdotool := needXdotool(t)
	d := aria2cDaemon(t)
	m := mirrortest.New(t, testkit.Data(1<<20), mirrortest.Path("/on-the-nas.bin"))
	rb := remoteBackend(t, d)
	id := addLink(t, rb, m.URL())
	waitDaemon(t, 30*time.Second, "the aria2c's download done", func() bool {
		j, _ := findJob(t, rb, id)
		return j.State == ui.Done
	})

	env := r.env()
	env = append(env, keyringBus(t, env))
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	var out syncBuffer
	win := exec.CommandContext(ctx, r.bin)
	win.Env = env
	win.Stdout, win.Stderr = &out, &out
	if err := win.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = win.Process.Kill(); _ = win.Wait() })
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("the window's output:\n%s", out.String())
		}
	})
	xdo := xdoRunner(ctx, t, xdotool, env, &out)
	wid := strings.Fields(xdo("search", "--sync", "--name", "^Braid$"))[0]
	waitWindowText(ctx, t, env, r.dump, &out, time.Minute, "connections-", "the local window", "Add URL", "Drop a .meta4")
	geometry := xdo("getwindowgeometry", wid)
	at := func(x, y int) {
		t.Helper()
		xdo("mousemove", "--sync", strconv.Itoa(x+2), strconv.Itoa(y+2))
		xdo("mousemove", "--sync", strconv.Itoa(x), strconv.Itoa(y))
		time.Sleep(150 * time.Millisecond)
		xdo("click", "1")
		time.Sleep(300 * time.Millisecond)
	}
	// sameWindow checks that the window with title re is the one the
	// test started with, where it was and as large.
	sameWindow := func(re, when string) {
		t.Helper()
		if !waitTitle(ctx, xdotool, env, re) {
			t.Fatalf("%s: no window is titled %s", when, re)
		}
		ids := strings.Fields(xdo("search", "--name", re))
		if len(ids) != 1 || ids[0] != wid {
			t.Errorf("%s: the windows titled %s are %v, want the one started with, %s", when, re, ids, wid)
		}
		if g := xdo("getwindowgeometry", wid); g != geometry {
			t.Errorf("%s: the window is at %q, it was at %q", when, g, geometry)
		}
	}
	xdo("windowfocus", "--sync", wid)
	xdo("key", "ctrl+comma")
	time.Sleep(1500 * time.Millisecond)
	left := dialogLeft(ctx, t, env)
	windowShot(ctx, t, env, "connections-settings")
	at(left+connTabDX, connTabY)
	windowShot(ctx, t, env, "connections-settings-here")
	waitWindowText(ctx, t, env, r.dump, &out, 10*time.Second, "connections-", "the tab", "Now: this computer's downloads.")
	at(left+anotherDX, whereY)
	at(left+connEntryDX, addressY)
	xdo("type", "--delay", "10", d.endpoint)
	at(left+connEntryDX, secretY)
	xdo("type", "--delay", "10", d.secret)
	time.Sleep(300 * time.Millisecond)
	windowShot(ctx, t, env, "connections-settings-another")
	xdo("key", "Return") // Save

	// The same window, on the aria2c.
	title := "^Braid — " + regexp.QuoteMeta(d.endpoint) + "$"
	sameWindow(title, "on the aria2c")
	// The side panel's rows are not among the texts a window dumps: its
	// list (This computer, the aria2c marked) is in the screenshot and in
	// ui's TestSidePanelConnections.
	texts := waitWindowText(ctx, t, env, r.dump, &out, time.Minute, "connections-", "on the aria2c", "on-the-nas.bin", "1.0 MiB")
	if strings.Contains(texts, "Drop a .meta4") {
		t.Error("on the aria2c, the window still shows this computer's empty queue")
	}
	windowShot(ctx, t, env, "connections-remote")
	if files := folderHolds(r.state, d.secret); len(files) > 0 {
		t.Errorf("the state folder holds the secret: %v", files)
	}
	if strings.Contains(out.String(), d.secret) {
		t.Error("the window's output holds the secret")
	}

	// The side panel: This computer, clicked; from another computer's
	// downloads nothing is asked.
	xdo("windowfocus", "--sync", wid)
	at(sideX, thisComputerY)
	sameWindow("^Braid$", "back here")
	waitWindowText(ctx, t, env, r.dump, &out, time.Minute, "connections-", "back here", "Drop a .meta4", "0 active")
	if b, _ := os.ReadFile(r.dump); strings.Contains(string(b), "on-the-nas.bin") {
		t.Error("back on this computer, the window still lists the aria2c's download")
	}
	windowShot(ctx, t, env, "connections-back")
	q, err := queue.Open(r.state)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	if s, err := q.Settings(); err != nil || s.RunOn != "" {
		t.Errorf("the choice kept is %q (%v), want this computer", s.RunOn, err)
	}
}

// waitTitle waits up to a minute for a window whose title matches re.
// Not xdotool's search --sync: it fails, rather than waits, when a window
// it looks at goes away meanwhile, as the one that closes to open again
// does.
func waitTitle(ctx context.Context, xdotool string, env []string, re string) bool {
	for end := time.Now().Add(time.Minute); time.Now().Before(end); time.Sleep(250 * time.Millisecond) {
		cmd := exec.CommandContext(ctx, xdotool, "search", "--name", re)
		cmd.Env = env
		if b, _ := cmd.Output(); len(strings.Fields(string(b))) > 0 {
			return true
		}
	}
	return false
}

// Where the parts of the settings dialog's Downloads run on tab are, from
// the dialog's left edge and the screen's top (FYNE_SCALE=1, light
// theme), measured on the screenshots.
const (
	connTabDX     = 88
	connTabY      = 535
	anotherDX     = 455
	whereY        = 93
	connEntryDX   = 500
	addressY      = 211
	secretY       = 250
	sideX         = 60
	thisComputerY = 406
	sideRowDY     = 39 // from one row of the side panel to the next
)

// Without a keyring a connection's secret lasts until Braid closes. Started
// again on that connection (its secret given before, so saved as having
// one), the window says so at once and asks for it; typed and Enter, the
// same window shows the aria2c's downloads. The secret reaches neither
// the state folder nor the output.
func TestRemoteSecretAskedAgain(t *testing.T) {
	r := newWindowRig(t, "dest")
	xdotool := needXdotool(t)
	d := aria2cDaemon(t)
	m := mirrortest.New(t, testkit.Data(256<<10), mirrortest.Path("/asked-again.bin"))
	rb := remoteBackend(t, d)
	id := addLink(t, rb, m.URL())
	waitDaemon(t, 30*time.Second, "the aria2c's download done", func() bool {
		j, _ := findJob(t, rb, id)
		return j.State == ui.Done
	})
	r.fillQueue(t, func(q *queue.Queue) {
		if err := q.UpdateSettings(func(st *queue.Settings) {
			st.Connections, st.RunOn = []queue.Connection{{Name: "nas", URL: d.endpoint, Secret: true}}, d.endpoint
		}); err != nil {
			t.Fatal(err)
		}
	})

	env := slices.DeleteFunc(r.env(), func(kv string) bool { return strings.HasPrefix(kv, remoteSecretEnv+"=") })
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var out syncBuffer
	win := exec.CommandContext(ctx, r.bin)
	win.Env = env
	win.Stdout, win.Stderr = &out, &out
	if err := win.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = win.Process.Kill(); _ = win.Wait() })
	xdo := xdoRunner(ctx, t, xdotool, env, &out)
	title := "^Braid — " + regexp.QuoteMeta(d.endpoint) + "$"
	wid := strings.Fields(xdo("search", "--sync", "--name", title))[0]
	waitWindowText(ctx, t, env, r.dump, &out, time.Minute, "secret-again-", "the question",
		"This system has no keyring (Secret Service), so the secret of the downloads at "+d.endpoint+" was kept only until Braid closed. Give it again to see them.")
	if b, _ := os.ReadFile(r.dump); strings.Contains(string(b), "asked-again.bin") {
		t.Error("the aria2c's download is listed before its secret was given")
	}
	windowShot(ctx, t, env, "secret-again-asked")
	xdo("windowfocus", "--sync", wid)
	xdo("type", "--delay", "10", d.secret)
	xdo("key", "Return")
	waitWindowText(ctx, t, env, r.dump, &out, time.Minute, "secret-again-", "the aria2c's downloads", "asked-again.bin", "256 KiB")
	windowShot(ctx, t, env, "secret-again-shown")
	if ids := strings.Fields(xdo("search", "--name", title)); len(ids) != 1 || ids[0] != wid {
		t.Errorf("the windows on the aria2c are %v, want the one started, %s", ids, wid)
	}
	if files := folderHolds(r.state, d.secret); len(files) > 0 {
		t.Errorf("the state folder holds the secret: %v", files)
	}
	if strings.Contains(out.String(), d.secret) {
		t.Error("the window's output holds the secret")
	}
}

// braid --remote URL lists the saved connections beside URL under
// Computers, URL marked: a click on a saved one shows its downloads in
// the same window, and a click on This computer this computer's queue.
// URL, given on the command line, is not saved by it.
func TestRemoteFlagListsConnections(t *testing.T) {
	r := newWindowRig(t, "dest")
	xdotool := needXdotool(t)
	saved, given := aria2cDaemon(t), aria2cDaemon(t) // one secret for both
	for _, c := range []struct {
		d    *remoteDaemon
		name string
	}{{saved, "on-the-saved.bin"}, {given, "on-the-given.bin"}} {
		m := mirrortest.New(t, testkit.Data(128<<10), mirrortest.Path("/"+c.name))
		rb := remoteBackend(t, c.d)
		id := addLink(t, rb, m.URL())
		waitDaemon(t, 30*time.Second, c.name+" done", func() bool {
			j, _ := findJob(t, rb, id)
			return j.State == ui.Done
		})
	}
	r.fillQueue(t, func(q *queue.Queue) {
		if err := q.UpdateSettings(func(st *queue.Settings) {
			st.Connections, st.RunOn = []queue.Connection{{Name: "nas", URL: saved.endpoint}}, ""
		}); err != nil {
			t.Fatal(err)
		}
	})
	env := r.env(remoteSecretEnv + "=" + given.secret)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var out syncBuffer
	win := exec.CommandContext(ctx, r.bin, "--remote", given.endpoint)
	win.Env = env
	win.Stdout, win.Stderr = &out, &out
	if err := win.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = win.Process.Kill(); _ = win.Wait() })
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("the window's output:\n%s", out.String())
		}
	})
	xdo := xdoRunner(ctx, t, xdotool, env, &out)
	wid := strings.Fields(xdo("search", "--sync", "--name", "^Braid — "+regexp.QuoteMeta(given.endpoint)+"$"))[0]
	waitWindowText(ctx, t, env, r.dump, &out, time.Minute, "remote-flag-", "the given daemon", "on-the-given.bin")
	windowShot(ctx, t, env, "remote-flag-given")
	at := func(x, y int) {
		t.Helper()
		xdo("mousemove", "--sync", strconv.Itoa(x+2), strconv.Itoa(y+2))
		xdo("mousemove", "--sync", strconv.Itoa(x), strconv.Itoa(y))
		time.Sleep(150 * time.Millisecond)
		xdo("click", "1")
		time.Sleep(300 * time.Millisecond)
	}
	same := func(re, when string) {
		t.Helper()
		if !waitTitle(ctx, xdotool, env, re) {
			t.Fatalf("%s: no window is titled %s", when, re)
		}
		if ids := strings.Fields(xdo("search", "--name", re)); len(ids) != 1 || ids[0] != wid {
			t.Errorf("%s: the windows titled %s are %v, want the one started, %s", when, re, ids, wid)
		}
	}
	// Computers: This computer, nas (saved), the given one (marked).
	xdo("windowfocus", "--sync", wid)
	at(sideX, thisComputerY+sideRowDY)
	same("^Braid — "+regexp.QuoteMeta(saved.endpoint)+"$", "on the saved daemon")
	texts := waitWindowText(ctx, t, env, r.dump, &out, time.Minute, "remote-flag-", "the saved daemon", "on-the-saved.bin")
	if strings.Contains(texts, "on-the-given.bin") {
		t.Error("on the saved daemon, the window still lists the given one's download")
	}
	windowShot(ctx, t, env, "remote-flag-saved")
	xdo("windowfocus", "--sync", wid)
	at(sideX, thisComputerY)
	same("^Braid$", "on this computer")
	waitWindowText(ctx, t, env, r.dump, &out, time.Minute, "remote-flag-", "this computer", "Drop a .meta4", "0 active")
	windowShot(ctx, t, env, "remote-flag-here")

	xdo("windowfocus", "--sync", wid)
	xdo("key", "ctrl+q")
	_ = win.Wait()
	q, err := queue.Open(r.state)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	s, err := q.Settings()
	if list := s.Connections; err != nil || len(list) != 1 || list[0].URL != saved.endpoint || s.RunOn != "" {
		t.Errorf("saved: %+v, chosen %q (%v); want the nas alone, this computer chosen", list, s.RunOn, err)
	}
}
