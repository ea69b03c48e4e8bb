package platform

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/windows/registry"
)

// TestRegisterNativeHostInRegistry (the Windows form of
// TestRegisterNativeHost): the manifests go to %LOCALAPPDATA%, each
// browser's key in HKCU names its family's manifest (read back from the
// real registry), the launcher starts braid with its arguments and the
// browser's, and unregistering leaves no key and no file.
func TestRegisterNativeHostInRegistry(t *testing.T) {
	local := t.TempDir()
	t.Setenv("LOCALAPPDATA", local)
	t.Setenv("BRAID_TEST_ECHO", "1") // the test binary plays braid
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	h := NativeHost{
		Name:          "io.github.braid_dm.braid_test",
		Exe:           exe,
		Args:          []string{"native-host", "--state", `C:\it's here`},
		ChromeOrigins: []string{"chrome-extension://abcdefghijklmnopabcdefghijklmnop/"},
		FirefoxIDs:    []string{"braid@braid-dm.github.io"},
	}
	t.Cleanup(func() { _ = UnregisterNativeHost(h) })
	notes, err := RegisterNativeHost(h)
	if err != nil {
		t.Fatal(err)
	}
	if len(notes) != len(winHostKeys) {
		t.Errorf("notes %q, want one per browser", notes)
	}
	dir := filepath.Join(local, "Braid", "NativeMessagingHosts")
	launcher := filepath.Join(dir, "native-host.cmd")
	for _, k := range winHostKeys {
		key, err := registry.OpenKey(registry.CURRENT_USER, k.key+`\`+h.Name, registry.QUERY_VALUE)
		if err != nil {
			t.Errorf("%s: %v", k.browser, err)
			continue
		}
		manifest, _, err := key.GetStringValue("")
		key.Close()
		if err != nil {
			t.Errorf("%s: the key's default value: %v", k.browser, err)
			continue
		}
		b, err := os.ReadFile(manifest)
		if err != nil {
			t.Errorf("%s: %v", k.browser, err)
			continue
		}
		if k.firefox {
			var fm firefoxManifest
			if err := json.Unmarshal(b, &fm); err != nil || fm.Name != h.Name || fm.Path != launcher || len(fm.AllowedExtensions) != 1 || fm.AllowedExtensions[0] != h.FirefoxIDs[0] {
				t.Errorf("%s's manifest %s: %+v %v", k.browser, manifest, fm, err)
			}
		} else {
			var cm chromeManifest
			if err := json.Unmarshal(b, &cm); err != nil || cm.Name != h.Name || cm.Type != "stdio" || cm.Path != launcher || len(cm.AllowedOrigins) != 1 || cm.AllowedOrigins[0] != h.ChromeOrigins[0] {
				t.Errorf("%s's manifest %s: %+v %v", k.browser, manifest, cm, err)
			}
		}
	}
	// The browser starts the launcher with the caller's origin (Chrome
	// adds --parent-window=0 on Windows too).
	out, err := exec.Command(launcher, "chrome-extension://abcdefghijklmnopabcdefghijklmnop/", "--parent-window=0").Output()
	if err != nil {
		t.Fatalf("run the launcher: %v", err)
	}
	got := strings.ReplaceAll(string(out), "\r\n", "\n")
	want := "native-host\n--state\nC:\\it's here\nchrome-extension://abcdefghijklmnopabcdefghijklmnop/\n--parent-window=0\n"
	if got != want {
		t.Errorf("the launcher ran braid with %q, want %q", got, want)
	}

	if err := UnregisterNativeHost(h); err != nil {
		t.Fatal(err)
	}
	for _, k := range winHostKeys {
		key, err := registry.OpenKey(registry.CURRENT_USER, k.key+`\`+h.Name, registry.QUERY_VALUE)
		if err == nil {
			key.Close()
			t.Errorf("%s's key is left after unregistering", k.browser)
		} else if !errors.Is(err, registry.ErrNotExist) {
			t.Errorf("%s: %v", k.browser, err)
		}
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s left after unregistering: %v", dir, err)
	}
}

// Bad input registers nothing: no key is written.
func TestRegisterNativeHostBadInputInRegistry(t *testing.T) {
	t.Setenv("LOCALAPPDATA", t.TempDir())
	name := "io.github.braid_dm.braid_bad_test"
	for what, bad := range map[string]NativeHost{
		"relative exe":  {Name: name, Exe: "braid.exe", ChromeOrigins: []string{"chrome-extension://abcdefghijklmnopabcdefghijklmnop/"}},
		"wildcard":      {Name: name, Exe: `C:\Braid\braid.exe`, ChromeOrigins: []string{"chrome-extension://*/"}},
		"no extensions": {Name: name, Exe: `C:\Braid\braid.exe`},
	} {
		if _, err := RegisterNativeHost(bad); err == nil {
			t.Errorf("%s: registered", what)
		}
	}
	for _, k := range winHostKeys {
		if key, err := registry.OpenKey(registry.CURRENT_USER, k.key+`\`+name, registry.QUERY_VALUE); err == nil {
			key.Close()
			t.Errorf("%s got a key for a refused host", k.browser)
		}
	}
}
