package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/windows/registry"

	"braid/nativehost"
)

// TestInstallAndUninstallCommandsInRegistry (the Windows form of
// TestInstallAndUninstallCommands): braid install writes the current
// user's file classes and the magnet: handler under HKCU\Software\Classes,
// each opening this binary, and the browsers' native messaging host keys;
// braid uninstall removes them all. The keys are read back from the real
// registry (under Wine, the test prefix's own); the manifests go to a
// temporary %LOCALAPPDATA%.
func TestInstallAndUninstallCommandsInRegistry(t *testing.T) {
	t.Setenv("LOCALAPPDATA", t.TempDir())
	exe, err := os.Executable()
	if err == nil {
		exe, err = filepath.EvalSymlinks(exe)
	}
	if err != nil {
		t.Fatal(err)
	}
	read := func(path string) (string, error) {
		k, err := registry.OpenKey(registry.CURRENT_USER, path, registry.QUERY_VALUE)
		if err != nil {
			return "", err
		}
		defer k.Close()
		v, _, err := k.GetStringValue("")
		return v, err
	}
	open := `"` + exe + `" "%1"`
	want := map[string]string{
		`Software\Classes\.meta4`:                            "Braid.meta4",
		`Software\Classes\.metalink`:                         "Braid.metalink",
		`Software\Classes\.torrent`:                          "Braid.torrent",
		`Software\Classes\Braid.meta4\shell\open\command`:    open,
		`Software\Classes\Braid.metalink\shell\open\command`: open,
		`Software\Classes\Braid.torrent\shell\open\command`:  open,
		`Software\Classes\magnet\shell\open\command`:         open,
	}
	host := `Software\Google\Chrome\NativeMessagingHosts\` + nativehost.Name

	var out, errs bytes.Buffer
	t.Cleanup(func() { cmdUninstall(context.Background(), nil, &out, &errs) })
	if code := cmdInstall(context.Background(), nil, &out, &errs); code != 0 {
		t.Fatalf("install exit %d: %s", code, errs.String())
	}
	for path, w := range want {
		if v, err := read(path); err != nil || v != w {
			t.Errorf(`HKCU\%s = %q (%v), want %q`, path, v, err, w)
		}
	}
	manifest, err := read(host)
	if err != nil {
		t.Errorf(`HKCU\%s: %v`, host, err)
	} else if _, err := os.Stat(manifest); err != nil {
		t.Errorf("the Chrome key names %s: %v", manifest, err)
	}

	if code := cmdUninstall(context.Background(), nil, &out, &errs); code != 0 {
		t.Fatalf("uninstall exit %d: %s", code, errs.String())
	}
	for _, path := range []string{`Software\Classes\Braid.meta4`, `Software\Classes\Braid.metalink`,
		`Software\Classes\Braid.torrent`, `Software\Classes\magnet`, host} {
		if k, err := registry.OpenKey(registry.CURRENT_USER, path, registry.QUERY_VALUE); err == nil {
			k.Close()
			t.Errorf(`HKCU\%s is still there after uninstall`, path)
		} else if !errors.Is(err, registry.ErrNotExist) {
			t.Errorf(`HKCU\%s: %v`, path, err)
		}
	}
	for _, ext := range []string{".meta4", ".metalink", ".torrent"} {
		if v, err := read(`Software\Classes\` + ext); err == nil && v != "" {
			t.Errorf(`HKCU\Software\Classes\%s still opens with %q`, ext, v)
		}
	}
	if code := cmdInstall(context.Background(), []string{"extra"}, &out, &errs); code != 2 {
		t.Errorf("install with an argument: exit %d, want 2", code)
	}
}
