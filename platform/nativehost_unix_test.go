//go:build !windows && !darwin

package platform

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func testHost(exe string) NativeHost {
	return NativeHost{
		Name:          "io.github.braid_dm.braid",
		Exe:           exe,
		Args:          []string{"native-host", "--state", "/tmp/it's here"},
		ChromeOrigins: []string{"chrome-extension://abcdefghijklmnopabcdefghijklmnop/"},
		FirefoxIDs:    []string{"braid@braid-dm.github.io"},
	}
}

// TestRegisterNativeHost: under a fake HOME where Chromium and Firefox
// were run (their folders exist) and Chrome was not, the manifests go to
// Chromium's and Firefox's folders only, name a launcher that starts Braid
// with its arguments and the browser's, and unregistering removes them.
func TestRegisterNativeHost(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("XDG_DATA_HOME", "")
	for _, d := range []string{".config/chromium", ".mozilla"} {
		if err := os.MkdirAll(filepath.Join(home, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	// The "braid binary" prints its arguments, so the launcher is run for real.
	exe := filepath.Join(t.TempDir(), "fake braid")
	if err := os.WriteFile(exe, []byte("#!/bin/sh\nprintf '%s\\n' \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	h := testHost(exe)
	notes, err := RegisterNativeHost(h)
	if err != nil {
		t.Fatal(err)
	}
	if len(notes) != 2 || !strings.Contains(notes[0], "Chromium") || !strings.Contains(notes[1], "Firefox") {
		t.Errorf("notes %q", notes)
	}
	chromium := filepath.Join(home, ".config/chromium/NativeMessagingHosts", h.Name+".json")
	firefox := filepath.Join(home, ".mozilla/native-messaging-hosts", h.Name+".json")
	var cm chromeManifest
	readJSON(t, chromium, &cm)
	var fm firefoxManifest
	readJSON(t, firefox, &fm)
	launcher := filepath.Join(home, ".local/share/braid/native-host.sh")
	if cm.Name != h.Name || cm.Type != "stdio" || cm.Path != launcher || len(cm.AllowedOrigins) != 1 || cm.AllowedOrigins[0] != h.ChromeOrigins[0] {
		t.Errorf("Chromium manifest %+v", cm)
	}
	if fm.Name != h.Name || fm.Path != launcher || len(fm.AllowedExtensions) != 1 || fm.AllowedExtensions[0] != "braid@braid-dm.github.io" {
		t.Errorf("Firefox manifest %+v", fm)
	}
	if _, err := os.Stat(filepath.Join(home, ".config/google-chrome")); !os.IsNotExist(err) {
		t.Errorf("a browser that was never run got a folder: %v", err)
	}
	out, err := exec.Command(launcher, "chrome-extension://abcdefghijklmnopabcdefghijklmnop/").Output()
	if err != nil {
		t.Fatalf("run the launcher: %v", err)
	}
	want := "native-host\n--state\n/tmp/it's here\nchrome-extension://abcdefghijklmnopabcdefghijklmnop/\n"
	if string(out) != want {
		t.Errorf("launcher ran braid with %q, want %q", out, want)
	}

	if err := UnregisterNativeHost(h); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{chromium, firefox, launcher} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s left after unregistering: %v", p, err)
		}
	}
}

func TestRegisterNativeHostNoBrowserAndBadInput(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, "cfg"))
	if err := os.MkdirAll(filepath.Join(home, "cfg/BraveSoftware/Brave-Browser"), 0o700); err != nil {
		t.Fatal(err)
	}
	h := testHost("/usr/bin/braid")
	h.Args = nil
	h.FirefoxIDs = nil
	notes, err := RegisterNativeHost(h)
	if err != nil || len(notes) != 1 || !strings.Contains(notes[0], "Brave") {
		t.Fatalf("notes %q, %v", notes, err)
	}
	var cm chromeManifest
	readJSON(t, filepath.Join(home, "cfg/BraveSoftware/Brave-Browser/NativeMessagingHosts", h.Name+".json"), &cm)
	if cm.Path != "/usr/bin/braid" {
		t.Errorf("without arguments the manifest names braid itself: %q", cm.Path)
	}

	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, "empty"))
	if notes, err := RegisterNativeHost(h); err != nil || len(notes) != 1 || !strings.Contains(notes[0], "no browser found") {
		t.Errorf("with no browser: %q, %v", notes, err)
	}

	for name, bad := range map[string]NativeHost{
		"relative exe":  {Name: h.Name, Exe: "braid", ChromeOrigins: h.ChromeOrigins},
		"no name":       {Exe: "/usr/bin/braid", ChromeOrigins: h.ChromeOrigins},
		"wildcard":      {Name: h.Name, Exe: "/usr/bin/braid", ChromeOrigins: []string{"chrome-extension://*/"}},
		"no extensions": {Name: h.Name, Exe: "/usr/bin/braid"},
	} {
		if _, err := RegisterNativeHost(bad); err == nil {
			t.Errorf("%s: registered", name)
		}
	}
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}
