package packaging

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf16"

	"braid/internal/testkit"
)

// wineTools finds what the installer test needs, or says what is missing.
func wineTools(t *testing.T) (wine, wineserver string) {
	t.Helper()
	look := func(names ...string) string {
		for _, n := range names {
			if p, err := exec.LookPath(n); err == nil {
				return p
			}
		}
		return ""
	}
	wine = look("wine64", "/usr/lib/wine/wine64")
	wineserver = look("wineserver", "/usr/lib/wine/wineserver")
	var missing []string
	if wine == "" || wineserver == "" {
		missing = append(missing, "wine64")
	}
	if look("makensis") == "" {
		missing = append(missing, "nsis (makensis)")
	}
	if look("x86_64-w64-mingw32-gcc") == "" {
		missing = append(missing, "gcc-mingw-w64-x86-64")
	}
	if look("Xvfb") == "" {
		missing = append(missing, "xvfb (the window that opens the .meta4 needs a display)")
	}
	if len(missing) > 0 {
		t.Skipf("the installer test needs %s; make setup installs them", strings.Join(missing, ", "))
	}
	return wine, wineserver
}

// buildTags are GOFLAGS' -tags (the Makefile's), which a headless build
// extends.
func buildTags() string {
	for _, f := range strings.Fields(os.Getenv("GOFLAGS")) {
		if v, ok := strings.CutPrefix(f, "-tags="); ok {
			return v
		}
	}
	return "nosqlite,disable_libutp"
}

// buildWindows cross-compiles cmd/braid as the installer ships it:
// braid.exe (console, headless) and braid-window.exe (GUI subsystem). Both
// are built with the braidtest tag too, which adds the window's test modes
// and nothing else: the test adds a .meta4 without a click in the picker
// (BRAID_AUTOADD).
func buildWindows(t *testing.T, dir string) {
	t.Helper()
	builds := [][]string{
		{"-tags=" + buildTags() + ",headless,braidtest", "-ldflags=-s -w", "-o", filepath.Join(dir, "braid.exe")},
		{"-tags=" + buildTags() + ",braidtest", "-ldflags=-s -w -H=windowsgui", "-o", filepath.Join(dir, "braid-window.exe")},
	}
	var wg sync.WaitGroup
	errs := make([]error, len(builds))
	for i, b := range builds {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command("go", append(append([]string{"build"}, b...), "./cmd/braid")...)
			cmd.Dir = ".."
			cmd.Env = append(os.Environ(), "GOOS=windows", "GOARCH=amd64", "CGO_ENABLED=1", "CC=x86_64-w64-mingw32-gcc")
			if out, err := cmd.CombinedOutput(); err != nil {
				errs[i] = fmt.Errorf("go build %s: %v\n%s", strings.Join(b, " "), err, out)
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
}

// startXvfb starts a virtual display on a free number and returns it.
func startXvfb(t *testing.T) string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("Xvfb", "-displayfd", "3", "-screen", "0", "1280x800x24")
	cmd.ExtraFiles = []*os.File{w}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	buf := make([]byte, 16)
	n, _ := r.Read(buf)
	r.Close()
	num := strings.TrimSpace(string(buf[:n]))
	if num == "" {
		t.Fatal("Xvfb did not say which display it took")
	}
	return ":" + num
}

// winePrefix is a fresh Wine prefix with the ProcessPrng stand-in
// (tools/wine) that Go's runtime needs under Wine 8.
type winePrefix struct {
	t                *testing.T
	wine, wineserver string
	dir              string
	env              []string
}

func newWinePrefix(t *testing.T, wine, wineserver, display string) *winePrefix {
	t.Helper()
	p := &winePrefix{t: t, wine: wine, wineserver: wineserver, dir: filepath.Join(t.TempDir(), "prefix")}
	p.env = append(os.Environ(), "WINEPREFIX="+p.dir, "WINEDEBUG=-all", "WINEDLLOVERRIDES=mscoree,mshtml=", "DISPLAY="+display)
	t.Cleanup(func() { p.kill() })
	if _, err := p.run(2*time.Minute, nil, "wineboot", "-i"); err != nil {
		t.Fatalf("wineboot: %v", err)
	}
	dll := filepath.Join(p.dir, "drive_c", "windows", "system32", "bcryptprimitives.dll")
	cmd := exec.Command("x86_64-w64-mingw32-gcc", "-shared", "-O2", "-o", dll,
		"../tools/wine/processprng.c", "../tools/wine/processprng.def", "-ladvapi32")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the ProcessPrng stand-in: %v\n%s", err, out)
	}
	return p
}

// run runs a Windows program under Wine and returns its output. Its output
// goes to a file: Wine's services may hold a pipe open after it ends.
func (p *winePrefix) run(timeout time.Duration, env []string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	out, err := os.CreateTemp(p.t.TempDir(), "wine-out")
	if err != nil {
		return "", err
	}
	defer out.Close()
	cmd := exec.CommandContext(ctx, p.wine, args...)
	cmd.Env = append(append([]string{}, p.env...), env...)
	cmd.Stdout, cmd.Stderr = out, out
	err = cmd.Run()
	b, _ := os.ReadFile(out.Name())
	if ctx.Err() != nil {
		err = fmt.Errorf("%s did not end within %v", strings.Join(args, " "), timeout)
	}
	return string(b), err
}

// kill ends every process of the prefix (the windows Braid opened).
func (p *winePrefix) kill() {
	cmd := exec.Command(p.wineserver, "-k")
	cmd.Env = p.env
	cmd.Run()
}

// wait waits until every process of the prefix has ended.
func (p *winePrefix) wait() {
	cmd := exec.Command(p.wineserver, "-w")
	cmd.Env = p.env
	cmd.Run()
}

// unix is the Linux path of a C:\ path in the prefix.
func (p *winePrefix) unix(win string) string {
	rest, ok := strings.CutPrefix(strings.ToLower(win[:3]), `c:\`)
	if !ok || rest != "" {
		p.t.Fatalf("%q is not on C:", win)
	}
	return filepath.Join(p.dir, "drive_c", filepath.FromSlash(strings.ReplaceAll(win[3:], `\`, "/")))
}

// query is `reg query KEY [/v NAME | /ve]`; ok is false when the key or
// value is absent.
func (p *winePrefix) query(key string, value ...string) (out string, ok bool) {
	args := append([]string{"reg", "query", key}, value...)
	out, err := p.run(time.Minute, nil, args...)
	return out, err == nil
}

// keys lists every key below HKCU\Software, for the before-and-after
// comparison of the uninstaller.
func (p *winePrefix) keys() map[string]bool {
	out, err := p.run(time.Minute, nil, "reg", "query", `HKCU\Software`, "/s")
	if err != nil {
		p.t.Fatalf("reg query HKCU\\Software /s: %v\n%s", err, out)
	}
	keys := map[string]bool{}
	for _, l := range strings.Split(out, "\n") {
		l = strings.TrimRight(l, "\r ")
		if strings.HasPrefix(l, "HKEY_") {
			keys[strings.ToLower(l)] = true
		}
	}
	return keys
}

// TestWindowsInstaller builds braid.exe, braid-window.exe and the NSIS
// installer, and under Wine in a fresh prefix installs silently, checks
// the registry and the files, starts Braid from the Start menu, opens a
// .meta4 through Wine's start, and uninstalls silently, with and without
// /REMOVEDATA.
func TestWindowsInstaller(t *testing.T) {
	if testing.Short() {
		t.Skip("builds Braid for Windows and installs it under Wine (minutes)")
	}
	wine, wineserver := wineTools(t)
	began := time.Now()
	bin := t.TempDir()
	buildWindows(t, bin)
	setup := filepath.Join(bin, "braid-setup.exe")
	mk := exec.Command("makensis", "-V2", "-DVERSION="+braidVersion(t), "-DBIN="+bin,
		"-DCOMPRESSOR=zlib", "-DOUTFILE="+setup, "braid.nsi")
	mk.Dir = "windows"
	if out, err := mk.CombinedOutput(); err != nil {
		t.Fatalf("makensis: %v\n%s", err, out)
	}
	if fi, err := os.Stat(setup); err == nil {
		t.Logf("built in %v; the installer is %.1f MB (zlib; the release's LZMA is smaller)", time.Since(began).Round(time.Second), float64(fi.Size())/1e6)
	}

	p := newWinePrefix(t, wine, wineserver, startXvfb(t))
	before := p.keys()
	if out, err := p.run(3*time.Minute, nil, setup, "/S"); err != nil {
		t.Fatalf("silent install: %v\n%s", err, out)
	}

	// The registry: what `braid install` writes, and the uninstall entry.
	users, _ := filepath.Glob(filepath.Join(p.dir, "drive_c", "users", "*", "AppData", "Local", "Programs", "Braid"))
	if len(users) != 1 {
		t.Fatalf("the install folder, %%LOCALAPPDATA%%\\Programs\\Braid, is not there (found %q)", users)
	}
	installDir := users[0]
	user := filepath.Base(filepath.Dir(filepath.Dir(filepath.Dir(filepath.Dir(installDir)))))
	winDir := `C:\users\` + user + `\AppData\Local\Programs\Braid`
	window := winDir + `\braid-window.exe`
	for _, ext := range []string{"meta4", "metalink", "torrent"} {
		if out, ok := p.query(`HKCU\Software\Classes\.`+ext, "/ve"); !ok || !strings.Contains(out, "Braid."+ext) {
			t.Errorf(".%s is not Braid's: %s", ext, out)
		}
		if out, ok := p.query(`HKCU\Software\Classes\Braid.`+ext+`\shell\open\command`, "/ve"); !ok || !strings.Contains(out, `"`+window+`" "%1"`) {
			t.Errorf("Braid.%s does not open with braid-window.exe: %s", ext, out)
		}
	}
	if out, ok := p.query(`HKCU\Software\Classes\magnet`, "/v", "URL Protocol"); !ok {
		t.Errorf("magnet: is not a URL protocol: %s", out)
	}
	if out, ok := p.query(`HKCU\Software\Classes\magnet\shell\open\command`, "/ve"); !ok || !strings.Contains(out, window) {
		t.Errorf("magnet: links do not open Braid: %s", out)
	}
	for _, browser := range []string{`Google\Chrome`, `Microsoft\Edge`, `Mozilla`} {
		out, ok := p.query(`HKCU\Software\`+browser+`\NativeMessagingHosts\io.github.braid_dm.braid`, "/ve")
		if !ok {
			t.Errorf("no native messaging host for %s: %s", browser, out)
			continue
		}
		i := strings.Index(out, `C:\`)
		if i < 0 {
			t.Errorf("%s's host key names no manifest: %s", browser, out)
			continue
		}
		manifest := strings.TrimSpace(out[i:])
		if b, err := os.ReadFile(p.unix(manifest)); err != nil || !bytes.Contains(b, []byte("io.github.braid_dm.braid")) {
			t.Errorf("%s's manifest %s: %v %s", browser, manifest, err, b)
		}
	}
	uninstKey := `HKCU\Software\Microsoft\Windows\CurrentVersion\Uninstall\Braid`
	entry, ok := p.query(uninstKey)
	if !ok {
		t.Fatalf("no Add/Remove Programs entry: %s", entry)
	}
	for _, v := range []string{"DisplayName", "DisplayIcon", "Publisher", "DisplayVersion", "UninstallString", "QuietUninstallString", "EstimatedSize", "NoModify", "NoRepair"} {
		if !strings.Contains(entry, "    "+v+"    ") {
			t.Errorf("the uninstall entry has no %s:\n%s", v, entry)
		}
	}
	if !strings.Contains(entry, `"`+winDir+`\uninstall.exe" /S`) {
		t.Errorf("QuietUninstallString is not uninstall.exe /S:\n%s", entry)
	}

	// The files and the Start-menu entry.
	for _, f := range []string{"braid.exe", "braid-window.exe", "uninstall.exe", "LICENSE.txt", "third-party-licences.txt"} {
		if _, err := os.Stat(filepath.Join(installDir, f)); err != nil {
			t.Errorf("installed: %v", err)
		}
	}
	roaming := filepath.Join(p.dir, "drive_c", "users", user, "AppData", "Roaming")
	lnk := filepath.Join(roaming, "Microsoft", "Windows", "Start Menu", "Programs", "Braid.lnk")
	link, err := os.ReadFile(lnk)
	if err != nil {
		t.Fatalf("the Start-menu entry: %v", err)
	}
	if !bytes.Contains(link, []byte("braid-window.exe")) && !bytes.Contains(link, utf16le("braid-window.exe")) {
		t.Errorf("Braid.lnk does not point at braid-window.exe")
	}

	// The queue lives in %LOCALAPPDATA%\Braid (installDir is
	// %LOCALAPPDATA%\Programs\Braid).
	stateDB := filepath.Join(filepath.Dir(filepath.Dir(installDir)), "Braid", "state.db")

	// A .meta4 opened through Wine's start reaches Braid: the window adds it
	// (BRAID_AUTOADD) and downloads from the mirror it names.
	body := bytes.Repeat([]byte("braid installer test "), 10000)
	var fetched atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			fetched.Store(true)
		}
		http.ServeContent(w, r, "blob.bin", time.Time{}, bytes.NewReader(body))
	}))
	defer srv.Close()
	sum := sha256.Sum256(body)
	doc := filepath.Join(t.TempDir(), "installer test.meta4")
	os.WriteFile(doc, []byte(`<?xml version="1.0" encoding="UTF-8"?>
<metalink xmlns="urn:ietf:params:xml:ns:metalink">
  <file name="blob.bin"><size>`+fmt.Sprint(len(body))+`</size>
    <hash type="sha-256">`+hex.EncodeToString(sum[:])+`</hash>
    <url>`+srv.URL+`/blob.bin</url></file>
</metalink>
`), 0o644)
	// Wine 8's HKEY_CLASSES_ROOT is HKLM\Software\Classes alone: it does not
	// merge the user's classes in, as Windows does. The test copies Braid's
	// .meta4 class there for start to find, and removes it after.
	cmdline, _ := p.query(`HKCU\Software\Classes\Braid.meta4\shell\open\command`, "/ve")
	i := strings.Index(cmdline, `"C:\`)
	if i < 0 {
		t.Fatalf("no command for Braid.meta4: %s", cmdline)
	}
	for _, a := range [][]string{
		{"reg", "add", `HKLM\Software\Classes\.meta4`, "/ve", "/d", "Braid.meta4", "/f"},
		{"reg", "add", `HKLM\Software\Classes\Braid.meta4\shell\open\command`, "/ve", "/d", strings.TrimSpace(cmdline[i:]), "/f"},
	} {
		if out, err := p.run(time.Minute, nil, a...); err != nil {
			t.Fatalf("%s: %v\n%s", strings.Join(a, " "), err, out)
		}
	}
	var list string
	reached := true
	for try := 1; ; try++ {
		started, err := p.run(time.Minute, []string{"BRAID_AUTOADD=1"}, "start", "/unix", doc)
		if err != nil {
			t.Fatalf("start %s: %v\n%s", doc, err, started)
		}
		// Each try runs braid.exe under Wine: ask every half second.
		if testkit.EventuallyEvery(60*time.Second, 500*time.Millisecond, func() bool {
			list, _ = p.run(time.Minute, nil, filepath.Join(installDir, "braid.exe"), "queue", "list")
			return strings.Contains(list, "blob.bin") && strings.Contains(list, "installer test.meta4")
		}) {
			break
		}
		applog, _ := os.ReadFile(filepath.Join(filepath.Dir(stateDB), "braid.log"))
		// Under a busy Wine, GLFW sometimes cannot make its helper window
		// (a PlatformError in braid.log); one more try.
		if bytes.Contains(applog, []byte("PlatformError")) {
			if try == 1 {
				t.Logf("Wine could not make the window (%s); starting the .meta4 again", bytes.TrimSpace(applog))
				continue
			}
			// start found Braid's class and ran braid-window.exe (it wrote
			// its log), but Wine could not make its window twice: the
			// hand-over is not proven this run; the rest still is.
			t.Logf("Wine could not make the window again; the .meta4's way into the queue is not checked this run:\n%s", applog)
			reached = false
			break
		}
		t.Fatalf("the .meta4 opened through start never reached Braid's queue:\n%s\nstart said: %s\nbraid.log: %s", list, started, applog)
	}
	// The queue proves the hand-over; whether the busy window starts the
	// job within the wait is the runner's business, logged only.
	if reached {
		t.Logf("the .meta4 reached the queue; fetched from its mirror within 30 s: %v", testkit.Eventually(30*time.Second, fetched.Load))
	}
	p.kill()
	p.run(time.Minute, nil, "reg", "delete", `HKLM\Software\Classes\.meta4`, "/f")
	p.run(time.Minute, nil, "reg", "delete", `HKLM\Software\Classes\Braid.meta4`, "/f")

	// Started from the Start menu, braid-window.exe opens its queue (given
	// one of its own, apart from the .meta4's above).
	menuDB := filepath.Join(p.dir, "drive_c", "menu-state", "state.db")
	if out, err := p.run(time.Minute, []string{`BRAID_STATE=C:\menu-state`}, "start", "/unix", lnk); err != nil {
		t.Fatalf("start Braid.lnk: %v\n%s", err, out)
	}
	if !testkit.Eventually(90*time.Second, func() bool { _, err := os.Stat(menuDB); return err == nil }) {
		t.Fatalf("started from the Start menu, Braid made no queue (%s)", menuDB)
	}
	p.kill()

	// The command line as it ships, with no test overlay bridging Wine's
	// gaps: a download, and its removal with its file.
	braidExe := filepath.Join(installDir, "braid.exe")
	cli := []string{`BRAID_STATE=C:\cli-state`}
	if out, err := p.run(2*time.Minute, cli, braidExe, "get", srv.URL+"/blob.bin", "-d", `C:\cli-dl`); err != nil {
		t.Fatalf("braid.exe get: %v\n%s", err, out)
	}
	got := filepath.Join(p.dir, "drive_c", "cli-dl", "blob.bin")
	if b, err := os.ReadFile(got); err != nil || !bytes.Equal(b, body) {
		t.Fatalf("braid.exe get: %s holds %d bytes (%v), want the %d served", got, len(b), err, len(body))
	}
	if out, err := p.run(time.Minute, cli, braidExe, "queue", "remove", "--files", "1"); err != nil {
		t.Fatalf("braid.exe queue remove --files 1: %v\n%s", err, out)
	}
	if _, err := os.Lstat(got); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("braid.exe queue remove --files left the file: %v", err)
	}
	p.kill()

	// Silent uninstall: no key, no file of Braid's left; the queue stays.
	uninstall := func(args ...string) {
		t.Helper()
		if out, err := p.run(3*time.Minute, nil, append([]string{filepath.Join(installDir, "uninstall.exe"), "/S"}, args...)...); err != nil {
			t.Fatalf("silent uninstall: %v\n%s", err, out)
		}
		// The uninstaller runs from a copy in %TEMP% and returns at once.
		p.wait()
	}
	uninstall()
	var left []string
	for k := range p.keys() {
		if !before[k] && !systemKey(k) {
			left = append(left, k)
		}
	}
	if len(left) > 0 {
		t.Errorf("keys left after uninstalling: %q", left)
	}
	for _, k := range []string{`HKCU\Software\Classes\.meta4`, `HKCU\Software\Classes\Braid.torrent`, `HKCU\Software\Classes\magnet`,
		`HKCU\Software\Mozilla\NativeMessagingHosts\io.github.braid_dm.braid`, uninstKey} {
		if out, ok := p.query(k); ok {
			t.Errorf("%s is left after uninstalling:\n%s", k, out)
		}
	}
	localBraid := filepath.Join(filepath.Dir(filepath.Dir(installDir)), "Braid")
	for _, f := range []string{installDir, lnk, filepath.Join(localBraid, "NativeMessagingHosts")} {
		if _, err := os.Stat(f); err == nil {
			t.Errorf("%s is left after uninstalling", f)
		}
	}
	if kept, err := os.ReadDir(localBraid); err == nil {
		var names []string
		for _, e := range kept {
			names = append(names, e.Name())
		}
		t.Logf("kept as the user's data in %%LOCALAPPDATA%%\\Braid: %q", names)
	}
	if _, err := os.Stat(stateDB); err != nil {
		t.Errorf("uninstalling without /REMOVEDATA removed the queue: %v", err)
	}

	// /REMOVEDATA removes the queue too.
	if out, err := p.run(3*time.Minute, nil, setup, "/S"); err != nil {
		t.Fatalf("silent install, again: %v\n%s", err, out)
	}
	uninstall("/REMOVEDATA")
	if _, err := os.Stat(filepath.Dir(stateDB)); err == nil {
		t.Errorf("uninstall /REMOVEDATA left the queue's folder")
	}
	for _, f := range []string{installDir, localBraid} {
		if _, err := os.Stat(f); err == nil {
			t.Errorf("uninstall /REMOVEDATA left %s", f)
		}
	}
	t.Logf("the whole test took %v", time.Since(began).Round(time.Second))
}

// systemKey says whether a key that was not in the fresh prefix is one
// every Windows has (Wine makes them on first use, the installer's keys
// below them) or Wine's own store (Software\Wine\Credential Manager is
// where Wine keeps what the window asks of the Credential Manager).
func systemKey(k string) bool {
	switch k {
	case `hkey_current_user\software\classes`,
		`hkey_current_user\software\microsoft\windows\currentversion\uninstall`:
		return true
	}
	return strings.HasPrefix(k, `hkey_current_user\software\wine\`)
}

func utf16le(s string) []byte {
	var b []byte
	for _, r := range utf16.Encode([]rune(s)) {
		b = append(b, byte(r), byte(r>>8))
	}
	return b
}
