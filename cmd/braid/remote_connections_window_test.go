//go:build !headless

package main

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"braid/engine/mirrortest"
	"braid/internal/testkit"
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

// killReopened kills the processes a window said it opened again as
// as ("(process N)" in outFile) when the test ends.
func killReopened(t *testing.T, outFile string) {
	t.Cleanup(func() {
		b, _ := os.ReadFile(outFile)
		for _, m := range regexp.MustCompile(`\(process (\d+)\)`).FindAllStringSubmatch(string(b), -1) {
			if pid, err := strconv.Atoi(m[1]); err == nil {
				if p, err := os.FindProcess(pid); err == nil {
					_ = p.Kill()
				}
			}
		}
	})
}

// Settings → Downloads run on → Another computer, with an aria2c's address
// and secret, saved: the window closes and opens again on the aria2c's
// downloads, its row there; the secret is in the keyring, not in the
// state folder. The side panel lists This computer and the aria2c, the
// aria2c marked; a click on This computer, confirmed, opens the window
// on this computer's queue again, and the choice is kept.
func TestRemoteConnectionsWindow(t *testing.T) {
	r := newWindowRig(t, "dest")
	xdotool := needXdotool(t)
	d := aria2cDaemon(t)
	m := mirrortest.New(t, testkit.Data(1<<20), mirrortest.Path("/on-the-nas.bin"))
	rb := remoteBackend(t, d)
	id := addLink(t, rb, m.URL())
	testkit.WaitWithin(t, 30*time.Second, "the aria2c's download done", func() bool {
		j, _ := findJob(t, rb, id)
		return j.State == ui.Done
	})

	env := r.env()
	env = append(env, keyringBus(t, env))
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	// The output goes to a file: a window opened again writes to it too,
	// and outlives the first.
	outFile := filepath.Join(t.TempDir(), "out.txt")
	f, err := os.Create(outFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	killReopened(t, outFile)
	var out syncBuffer
	win := exec.CommandContext(ctx, r.bin)
	win.Env = env
	win.Stdout, win.Stderr = f, f
	if err := win.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = win.Process.Kill(); _ = win.Wait() })
	t.Cleanup(func() {
		if t.Failed() {
			b, _ := os.ReadFile(outFile)
			t.Logf("the windows' output:\n%s", b)
		}
	})
	xdo := xdoRunner(ctx, t, xdotool, env, &out)
	wid := strings.Fields(xdo("search", "--sync", "--name", "^Braid$"))[0]
	waitWindowText(ctx, t, env, r.dump, &out, time.Minute, "connections-", "the local window", "Add URL", "Drop a .meta4")
	at := func(x, y int) {
		t.Helper()
		xdo("mousemove", "--sync", strconv.Itoa(x+2), strconv.Itoa(y+2))
		xdo("mousemove", "--sync", strconv.Itoa(x), strconv.Itoa(y))
		time.Sleep(150 * time.Millisecond)
		xdo("click", "1")
		time.Sleep(300 * time.Millisecond)
	}
	xdo("windowfocus", "--sync", wid)
	xdo("key", "ctrl+comma")
	time.Sleep(1500 * time.Millisecond)
	left := dialogLeft(ctx, t, env)
	// The last tab is behind the tab bar's "…" menu, its one entry.
	at(left+moreTabsDX, tabsY)
	windowShot(ctx, t, env, "connections-settings-more")
	at(left+moreTabsDX-40, menuY)
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

	// The window opens again, on the aria2c.
	title := "^Braid — " + regexp.QuoteMeta(d.endpoint) + "$"
	if !waitTitle(ctx, xdotool, env, title) {
		t.Fatal("the window did not open again on the aria2c")
	}
	// The side panel's rows are not among the texts a window dumps: its
	// list (This computer, the aria2c marked) is in the screenshot and in
	// ui's TestSidePanelConnections.
	waitWindowText(ctx, t, env, r.dump, &out, time.Minute, "connections-", "on the aria2c", "on-the-nas.bin", "1.0 MiB")
	windowShot(ctx, t, env, "connections-remote")
	if files := folderHolds(r.state, d.secret); len(files) > 0 {
		t.Errorf("the state folder holds the secret: %v", files)
	}
	if b, _ := os.ReadFile(outFile); strings.Contains(string(b), d.secret) {
		t.Error("the window's output holds the secret")
	}

	// The side panel: This computer, clicked and confirmed.
	wid = strings.Fields(xdo("search", "--name", title))[0]
	xdo("windowfocus", "--sync", wid)
	at(sideX, thisComputerY)
	time.Sleep(500 * time.Millisecond)
	windowShot(ctx, t, env, "connections-ask")
	waitWindowText(ctx, t, env, r.dump, &out, 10*time.Second, "connections-", "the question", "Braid closes this window and opens it again on this computer's downloads.")
	xdo("key", "Return")
	if !waitTitle(ctx, xdotool, env, "^Braid$") {
		t.Fatal("the window did not open again on this computer")
	}
	waitWindowText(ctx, t, env, r.dump, &out, time.Minute, "connections-", "back here", "Drop a .meta4", "0 active")
	if b, _ := os.ReadFile(r.dump); strings.Contains(string(b), "on-the-nas.bin") {
		t.Error("back on this computer, the window still lists the aria2c's download")
	}
	windowShot(ctx, t, env, "connections-back")
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
	moreTabsDX    = 740
	menuY         = 130
	anotherDX     = 316
	whereY        = 133
	connEntryDX   = 340
	addressY      = 250
	secretY       = 289
	sideX         = 60
	thisComputerY = 406
)
