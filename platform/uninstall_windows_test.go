package platform

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/windows/registry"
)

// keyExists reports whether the HKCU key path is there.
func keyExists(t *testing.T, path string) bool {
	t.Helper()
	k, err := registry.OpenKey(registry.CURRENT_USER, path, registry.QUERY_VALUE)
	if errors.Is(err, registry.ErrNotExist) {
		return false
	}
	if err != nil {
		t.Fatalf(`HKCU\%s: %v`, path, err)
	}
	k.Close()
	return true
}

// setValue writes a string value into the HKCU key path, making it.
func setValue(t *testing.T, path, name, value string) {
	t.Helper()
	k, _, err := registry.CreateKey(registry.CURRENT_USER, path, registry.SET_VALUE)
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	if err := k.SetStringValue(name, value); err != nil {
		t.Fatal(err)
	}
}

// withParents is every key of paths and the keys above them, below
// Software.
func withParents(paths ...string) []string {
	seen := map[string]bool{}
	var out []string
	for _, p := range paths {
		for ; p != "Software"; p = p[:strings.LastIndex(p, `\`)] {
			if !seen[p] {
				seen[p] = true
				out = append(out, p)
			}
		}
	}
	return out
}

// TestUninstallLeavesNoEmptyKey: braid install then braid uninstall (the
// registry's part of them, Register and RegisterNativeHost and their
// undoing) leave HKCU as it was. Every key they made goes, down to the
// browsers' and the extensions' keys that Braid's were the last of; keys
// that were there before stay, and so do another program's values in the
// keys Braid shared: an OpenWithProgids entry for .torrent, another
// native messaging host under Chrome's key. The host's folder goes, up to
// %LOCALAPPDATA%\Braid when it is left empty. Read from the real registry
// (under Wine, the test prefix's).
func TestUninstallLeavesNoEmptyKey(t *testing.T) {
	local := t.TempDir()
	t.Setenv("LOCALAPPDATA", local)
	exe := `C:\Program Files\Braid test\braid-window.exe`
	h := NativeHost{
		Name:          "io.github.braid_dm.braid_uninstall_test",
		Exe:           exe,
		Args:          []string{"native-host"},
		ChromeOrigins: []string{"chrome-extension://abcdefghijklmnopabcdefghijklmnop/"},
		FirefoxIDs:    []string{"braid@braid-dm.github.io"},
	}
	var paths []string
	for _, c := range winClasses {
		paths = append(paths, classesKey+`\`+c.ext+`\OpenWithProgids`, classesKey+`\`+c.progID+`\shell\open\command`, classesKey+`\`+c.progID+`\DefaultIcon`)
	}
	paths = append(paths, classesKey+`\magnet\shell\open\command`)
	for _, k := range winHostKeys {
		paths = append(paths, k.key+`\`+h.Name)
	}
	keys := withParents(paths...)

	// Another program's: a .torrent handler in OpenWithProgids and a host
	// of its own under Chrome's key.
	otherProgID := "Other.Torrent.Client"
	otherHost := `Software\Google\Chrome\NativeMessagingHosts\com.example.other_host`
	setValue(t, classesKey+`\.torrent\OpenWithProgids`, otherProgID, "")
	setValue(t, otherHost, "", `C:\Other\host.json`)
	t.Cleanup(func() {
		if k, err := registry.OpenKey(registry.CURRENT_USER, classesKey+`\.torrent\OpenWithProgids`, registry.SET_VALUE); err == nil {
			k.DeleteValue(otherProgID)
			k.Close()
		}
		removeEmptyKeys(classesKey+`\.torrent\OpenWithProgids`, classesKey)
		registry.DeleteKey(registry.CURRENT_USER, otherHost)
		removeEmptyKeys(`Software\Google\Chrome\NativeMessagingHosts`, "Software")
	})
	before := map[string]bool{}
	for _, k := range keys {
		before[k] = keyExists(t, k)
	}

	t.Cleanup(func() {
		Unregister(context.Background(), exe, nil)
		UnregisterNativeHost(h)
	})
	if _, err := Register(context.Background(), exe, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := RegisterNativeHost(h); err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		if !keyExists(t, k) {
			t.Fatalf(`HKCU\%s is not there after registering`, k)
		}
	}
	if _, err := Unregister(context.Background(), exe, nil); err != nil {
		t.Fatalf("Unregister: %v", err)
	}
	if err := UnregisterNativeHost(h); err != nil {
		t.Fatalf("UnregisterNativeHost: %v", err)
	}

	for _, k := range keys {
		switch now := keyExists(t, k); {
		case now && !before[k]:
			t.Errorf(`HKCU\%s is left after uninstalling`, k)
		case !now && before[k]:
			t.Errorf(`HKCU\%s, there before, is gone after uninstalling`, k)
		}
	}
	k, err := registry.OpenKey(registry.CURRENT_USER, classesKey+`\.torrent\OpenWithProgids`, registry.QUERY_VALUE)
	if err != nil {
		t.Fatalf("the other program's .torrent entry: %v", err)
	}
	names, _ := k.ReadValueNames(-1)
	k.Close()
	if len(names) != 1 || names[0] != otherProgID {
		t.Errorf(`HKCU\%s\.torrent\OpenWithProgids holds %q, want only the other program's %q`, classesKey, names, otherProgID)
	}
	k, err = registry.OpenKey(registry.CURRENT_USER, otherHost, registry.QUERY_VALUE)
	if err != nil {
		t.Fatalf("the other program's native messaging host: %v", err)
	}
	v, _, err := k.GetStringValue("")
	k.Close()
	if err != nil || v != `C:\Other\host.json` {
		t.Errorf(`HKCU\%s = %q (%v), want the other program's manifest`, otherHost, v, err)
	}
	if _, err := os.Stat(filepath.Join(local, "Braid")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf(`%%LOCALAPPDATA%%\Braid, left empty, is still there: %v`, err)
	}
}

// Unregistering the host removes its manifests and launcher, never
// another file in its folder: a file the user put there stays, with the
// folders above it.
func TestUnregisterNativeHostKeepsOtherFiles(t *testing.T) {
	local := t.TempDir()
	t.Setenv("LOCALAPPDATA", local)
	h := NativeHost{
		Name:          "io.github.braid_dm.braid_keep_test",
		Exe:           `C:\Braid\braid.exe`,
		Args:          []string{"native-host"},
		ChromeOrigins: []string{"chrome-extension://abcdefghijklmnopabcdefghijklmnop/"},
		FirefoxIDs:    []string{"braid@braid-dm.github.io"},
	}
	t.Cleanup(func() { UnregisterNativeHost(h) })
	if _, err := RegisterNativeHost(h); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(local, "Braid", "NativeMessagingHosts")
	mine := filepath.Join(dir, "chrome", "notes.txt")
	if err := os.WriteFile(mine, []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := UnregisterNativeHost(h); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(mine); err != nil || string(b) != "mine\n" {
		t.Errorf("the user's file: %q, %v", b, err)
	}
	for _, gone := range []string{"native-host.cmd", `chrome\` + h.Name + ".json", `firefox\` + h.Name + ".json", "firefox"} {
		if _, err := os.Stat(filepath.Join(dir, gone)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s is left after unregistering: %v", gone, err)
		}
	}
}
