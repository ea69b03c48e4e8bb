package nativehost

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"braid/internal/testkit"
)

// marionette is a session of Firefox's remote protocol, Marionette (what
// geckodriver speaks to Firefox): "LENGTH:JSON" messages, a command
// [0, id, name, params] answered by [1, id, error, result]. Unlike
// WebDriver BiDi, it may open the extension's moz-extension:// pages.
type marionette struct {
	c    net.Conn
	r    *bufio.Reader
	next int
}

func dialMarionette(ctx context.Context, addr string) (*marionette, error) {
	var d net.Dialer
	for {
		c, err := d.DialContext(ctx, "tcp", addr)
		if err == nil {
			m := &marionette{c: c, r: bufio.NewReader(c)}
			if _, err := m.read(); err != nil { // the greeting
				c.Close()
				return nil, err
			}
			return m, nil
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("connect to Firefox's Marionette at %s: %w", addr, err)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

func (m *marionette) read() (json.RawMessage, error) {
	n, err := m.r.ReadString(':')
	if err != nil {
		return nil, err
	}
	size, err := strconv.Atoi(strings.TrimSuffix(n, ":"))
	if err != nil || size < 0 || size > 64<<20 {
		return nil, fmt.Errorf("marionette: bad length %q", n)
	}
	b := make([]byte, size)
	if _, err := io.ReadFull(m.r, b); err != nil {
		return nil, err
	}
	return b, nil
}

func (m *marionette) call(t *testing.T, name string, params any) json.RawMessage {
	t.Helper()
	m.next++
	b, err := json.Marshal([]any{0, m.next, name, params})
	if err != nil {
		t.Fatal(err)
	}
	_ = m.c.SetDeadline(time.Now().Add(60 * time.Second))
	if _, err := fmt.Fprintf(m.c, "%d:%s", len(b), b); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	for {
		raw, err := m.read()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var msg []json.RawMessage
		if err := json.Unmarshal(raw, &msg); err != nil || len(msg) != 4 {
			t.Fatalf("%s: answer %s", name, raw)
		}
		var id int
		_ = json.Unmarshal(msg[1], &id)
		if id != m.next {
			continue
		}
		if string(msg[2]) != "null" {
			t.Fatalf("%s: %s", name, msg[2])
		}
		return msg[3]
	}
}

// eval runs a script (a function body) in the page and returns its value
// as a string.
func (m *marionette) eval(t *testing.T, script string) string {
	t.Helper()
	var r struct {
		Value any `json:"value"`
	}
	_ = json.Unmarshal(m.call(t, "WebDriver:ExecuteScript", map[string]any{"script": script, "args": []any{}}), &r)
	s, _ := r.Value.(string)
	return s
}

// TestFirefoxDownloadWithBraid is TestBrowserDownloadWithBraid's first
// half in Debian's Firefox ESR, driven over Marionette (Firefox's own
// remote protocol; Debian has no geckodriver): the extension is installed as a
// temporary add-on, the host registered in ~/.mozilla by
// platform.RegisterNativeHost, and a link behind a cookie login on nginx
// is added from the popup; the running Braid downloads it with Firefox's
// cookie and the file lands verified. Firefox starts the host with the
// manifest's path and the extension's ID.
func TestFirefoxDownloadWithBraid(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	if runtime.GOOS == "windows" {
		t.Skip(noBrowserOnWine)
	}
	firefox := ""
	for _, name := range []string{"firefox-esr", "firefox"} {
		if p, err := exec.LookPath(name); err == nil {
			firefox = p
			break
		}
	}
	if firefox == "" {
		t.Skip("firefox is not installed (Debian: apt-get install firefox-esr)")
	}
	r := newBrowserRig(t)
	if err := os.MkdirAll(filepath.Join(r.home, ".mozilla"), 0o700); err != nil {
		t.Fatal(err)
	}
	r.buildHost(t)
	r.startBraid(t)

	// The extension's moz-extension:// UUID is random per profile unless
	// the profile names it.
	const uuid = "6f1c2d3e-4b5a-4c6d-8e7f-90a1b2c3d4e5"
	profile := filepath.Join(t.TempDir(), "profile")
	if err := os.MkdirAll(profile, 0o700); err != nil {
		t.Fatal(err)
	}
	prefs := fmt.Sprintf(`user_pref("extensions.webextensions.uuids", %q);
user_pref("browser.shell.checkDefaultBrowser", false);
user_pref("datareporting.policy.dataSubmissionEnabled", false);
user_pref("app.update.enabled", false);
`, fmt.Sprintf(`{"%s":"%s"}`, FirefoxExtensionID, uuid))
	if err := os.WriteFile(filepath.Join(profile, "user.js"), []byte(prefs), 0o600); err != nil {
		t.Fatal(err)
	}

	port := testkit.FreePort(t)
	if f, err := os.OpenFile(filepath.Join(profile, "user.js"), os.O_APPEND|os.O_WRONLY, 0); err != nil {
		t.Fatal(err)
	} else {
		fmt.Fprintf(f, "user_pref(\"marionette.port\", %d);\n", port)
		f.Close()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, firefox, "--headless", "--no-remote", "--marionette", "-remote-allow-system-access", "--profile", profile, "about:blank")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}()
	m, err := dialMarionette(ctx, fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		t.Fatal(err)
	}
	defer m.c.Close()
	m.call(t, "WebDriver:NewSession", map[string]any{"capabilities": map[string]any{}})
	m.call(t, "Addon:Install", map[string]any{"path": r.ext, "temporary": true})
	nav := func(url string) { m.call(t, "WebDriver:Navigate", map[string]any{"url": url}) }

	nav(r.site.URL + "/login")
	link := m.eval(t, `return document.getElementById("file").href`)
	// Marionette refuses to navigate a tab to an extension's page; the
	// browser's own code, in its chrome context, may.
	popup := "moz-extension://" + uuid + "/popup.html"
	m.call(t, "Marionette:SetContext", map[string]any{"value": "chrome"})
	m.call(t, "WebDriver:ExecuteScript", map[string]any{"args": []any{popup}, "script": `
		gBrowser.selectedBrowser.fixupAndLoadURIString(arguments[0],
			{triggeringPrincipal: Services.scriptSecurityManager.getSystemPrincipal()});`})
	m.call(t, "Marionette:SetContext", map[string]any{"value": "content"})
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		if m.eval(t, `return document.readyState == "complete" && document.getElementById("url") ? location.href : ""`) == popup {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the popup did not open")
		}
	}
	m.eval(t, fmt.Sprintf(`document.getElementById("url").value = %q; document.getElementById("go").click(); return ""`, link))
	var status string
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		status = m.eval(t, `return document.getElementById("status").textContent`)
		if status != "" && status != "Adding…" {
			break
		}
	}
	var rows string
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		if rows = m.eval(t, `return [...document.querySelectorAll("li.download")].map(li => li.innerText).join(" | ")`); rows != "" {
			break
		}
	}
	t.Logf("popup said %q; rows %q", status, rows)
	if !strings.HasPrefix(status, "Added report.bin") {
		t.Errorf("popup status %q, want Added report.bin", status)
	}
	if !strings.Contains(rows, "report.bin") || !strings.Contains(rows, "queued") && !strings.Contains(rows, "running") {
		t.Errorf("popup rows %q, want report.bin queued or running", rows)
	}
	caller, err := os.ReadFile(filepath.Join(r.state, "caller.txt"))
	if err != nil || string(caller) != FirefoxExtensionID {
		t.Errorf("the host was started for %q (%v), want %s", caller, err, FirefoxExtensionID)
	}
	jobs := r.jobs(t)
	if len(jobs) != 1 || jobs[0].Source != link || len(jobs[0].Files) != 1 || jobs[0].Files[0].Name != "report.bin" {
		t.Fatalf("queue holds %+v, want report.bin from %s", jobs, link)
	}
	r.landedVerified(t, r.waitDone(t, jobs[0].ID), "report.bin", r.report)
	asks := r.site.asks(t, "/files/report.bin")
	if len(asks) < 2 {
		t.Errorf("nginx saw %d requests for report.bin, want Braid's look and its download", len(asks))
	}
	for _, a := range asks {
		if !strings.HasPrefix(a, "true|") || !strings.Contains(a, "Firefox/") {
			t.Errorf("a request for report.bin came as %q (cookie ok|user agent); want Firefox's cookie and user agent", a)
		}
	}
	r.noCookieInState(t)
}
