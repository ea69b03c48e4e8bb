//go:build !headless

package main

import (
	"bytes"
	"context"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"braid/engine/netconf/netconftest"
)

// TestWindowProxySetting runs the real binary on its own Xvfb display over
// a job whose origin serves only requests that came through tinyproxy (a
// direct request gets 403). Resumed with the system's setting (no proxy
// in the environment), the job fails. In Settings → Network the test
// chooses Manual, types the proxy's URL and its password (tinyproxy asks
// for a login) with xdotool and saves; resumed, the job goes through the
// proxy and its file lands. The proxy's password is then nowhere in the
// state folder, the window's output or the texts it showed.
func TestWindowProxySetting(t *testing.T) {
	t.Parallel()
	xdotool := needXdotool(t)
	needXwd(t)
	const proxyPass = "Window-Proxy-Pw-6620"
	proxy := netconftest.Tinyproxy(t, "pu", proxyPass)
	pu, err := url.Parse(proxy)
	if err != nil {
		t.Fatal(err)
	}
	data := bytes.Repeat([]byte("through the proxy "), 30<<10)
	origin := netconftest.ProxiedOnly(t, map[string][]byte{"p.bin": data})
	r := newWindowRig(t, "downloads")
	link := origin.URL + "/p/p.bin"
	pausedJob(t, r.state, r.dest, link, "p.bin", data)

	// No proxy in the environment: the system's setting is direct here.
	var env []string
	for _, kv := range r.env() {
		if name, _, _ := strings.Cut(kv, "="); !strings.HasSuffix(strings.ToLower(name), "_proxy") {
			env = append(env, kv)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	var out syncBuffer
	win := startWindow(ctx, t, r.bin, env, &out)
	xdo := xdoRunner(ctx, t, xdotool, env, &out)
	read := func() string { b, _ := os.ReadFile(r.dump); return string(b) }
	wid := strings.Fields(xdo("search", "--sync", "--name", "^Braid$"))[0]
	row := findRow(ctx, t, env)
	at := func(x, y int) {
		t.Helper()
		xdo("mousemove", "--sync", strconv.Itoa(x+2), strconv.Itoa(y+2))
		xdo("mousemove", "--sync", strconv.Itoa(x), strconv.Itoa(y))
		time.Sleep(150 * time.Millisecond)
		xdo("click", "1")
		time.Sleep(300 * time.Millisecond)
	}
	// resume selects the row and presses Ctrl+R until the origin sees a
	// new request: a click can land while the window is still settling
	// (after the settings dialog closes), and a Ctrl+R that reached no
	// row would leave the job failed from the try before.
	requests := func() int {
		b, _ := os.ReadFile(filepath.Join(origin.Dir, "access.log"))
		return bytes.Count(b, []byte("\n"))
	}
	resume := func(what string) {
		t.Helper()
		before := requests()
		for range 3 {
			xdo("windowfocus", "--sync", wid)
			at(row.x0-60, row.y)
			time.Sleep(200 * time.Millisecond)
			xdo("key", "ctrl+r")
			for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
				if requests() > before {
					return
				}
			}
		}
		windowShot(ctx, t, env, "proxy-resume")
		t.Fatalf("%s: three clicks on the row and Ctrl+R sent no request to the origin", what)
	}
	resume("the direct try")
	waitJob(ctx, t, r.bin, env, r.state, "the direct try", func(j queueJob) bool { return j.State == "failed" })

	// Settings → Network → Manual, the proxy's URL and password, Save.
	// The dialog is centred and its width follows its content: the parts
	// are found from its left edge.
	xdo("key", "ctrl+comma")
	time.Sleep(1500 * time.Millisecond)
	windowShot(ctx, t, env, "proxy-settings-general")
	left := dialogLeft(ctx, t, env)
	// Each step waits for the window to draw what the click changed: under
	// CI's load, once, Save stored nothing, as when a click comes before
	// the window has drawn the one before it.
	at(left+networkTabDX, tabsY)
	time.Sleep(time.Second)
	windowShot(ctx, t, env, "proxy-settings-network-system")
	at(left+manualDX, modeY)
	time.Sleep(time.Second)
	at(left+entryDX, proxyURLY)
	xdo("type", "--delay", "10", "http://pu@"+pu.Host)
	at(left+entryDX, proxyPassY)
	xdo("type", "--delay", "10", proxyPass)
	time.Sleep(300 * time.Millisecond)
	windowShot(ctx, t, env, "proxy-settings-network-manual")
	xdo("key", "Return") // Save
	// Stored, the setting is in the state folder: the grep for its
	// password at the end is then a real one.
	for end := time.Now().Add(10 * time.Second); len(folderHolds(r.state, "pu@"+pu.Host)) == 0; time.Sleep(100 * time.Millisecond) {
		if time.Now().After(end) {
			windowShot(ctx, t, env, "proxy-not-saved")
			t.Fatal("Save did not store the proxy setting")
		}
	}
	time.Sleep(300 * time.Millisecond) // the dialog closes

	resume("the download through the proxy")
	waitJob(ctx, t, r.bin, env, r.state, "the download through the proxy", func(j queueJob) bool {
		return j.State == "done" && j.Checked == "verified (sha-256)"
	})
	if got, _ := os.ReadFile(filepath.Join(r.dest, "p.bin")); !bytes.Equal(got, data) {
		t.Fatal("p.bin is not the origin's file")
	}
	xdo("windowfocus", "--sync", wid)
	xdo("key", "ctrl+q")
	_ = win.Wait()

	log, _ := os.ReadFile(filepath.Join(origin.Dir, "access.log"))
	if !strings.Contains(string(log), "403 ") || !strings.Contains(string(log), "tinyproxy") {
		t.Errorf("the origin did not see the direct try and the proxied download:\n%s", log)
	}
	if files := folderHolds(r.state, proxyPass); len(files) > 0 {
		t.Errorf("the state folder holds the proxy password: %v", files)
	}
	if strings.Contains(out.String(), proxyPass) || strings.Contains(read(), proxyPass) {
		t.Error("the window's output or texts hold the proxy password")
	}
}

// Where the settings dialog's parts are, from its left edge, in the
// 1100×720 window (Fyne's light theme at scale 1, English), as the
// screenshots show them: the tabs listed down the left, the Network
// tab's form beside them.
const (
	networkTabDX, tabsY = 88, 370
	manualDX, modeY     = 567, 93
	entryDX             = 520
	proxyURLY           = 155
	proxyPassY          = 217
)

// dialogLeft finds the left edge of the dialog over the window: the
// first white pixel of its title row, left of which the window is dimmed.
func dialogLeft(ctx context.Context, t *testing.T, env []string) int {
	t.Helper()
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
	for x := 0; x < 1100; x++ {
		r, g, bl, _ := img.At(x, 60).RGBA()
		if r>>8 >= 250 && g>>8 >= 250 && bl>>8 >= 250 {
			return x
		}
	}
	t.Fatal("no dialog over the window")
	return 0
}
