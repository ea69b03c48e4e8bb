package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"braid/platform"
)

func TestInstallAndUninstallCommands(t *testing.T) {
	root := t.TempDir()
	data, config := filepath.Join(root, "data"), filepath.Join(root, "config")
	t.Setenv("XDG_DATA_HOME", data)
	t.Setenv("XDG_CONFIG_HOME", config)
	t.Setenv("XDG_DATA_DIRS", filepath.Join(root, "none"))

	var out, errs bytes.Buffer
	if code := cmdInstall(context.Background(), nil, &out, &errs); code != 0 {
		t.Fatalf("install exit %d: %s", code, errs.String())
	}
	entry, err := os.ReadFile(filepath.Join(data, "applications", platform.AppID+".desktop"))
	if err != nil {
		t.Fatal(err)
	}
	exe, _ := os.Executable()
	exe, _ = filepath.EvalSymlinks(exe)
	if !strings.Contains(string(entry), `Exec="`+exe+`" %U`) {
		t.Errorf("entry does not run this binary (%s):\n%s", exe, entry)
	}
	for _, size := range []string{"16x16", "256x256"} {
		icon := filepath.Join(data, "icons", "hicolor", size, "apps", platform.AppID+".png")
		if fi, err := os.Stat(icon); err != nil || fi.Size() == 0 {
			t.Errorf("icon %s: %v", size, err)
		}
	}

	out.Reset()
	if code := cmdUninstall(context.Background(), nil, &out, &errs); code != 0 {
		t.Fatalf("uninstall exit %d: %s", code, errs.String())
	}
	if _, err := os.Stat(filepath.Join(data, "applications", platform.AppID+".desktop")); !os.IsNotExist(err) {
		t.Errorf("desktop entry still there: %v", err)
	}
	if code := cmdInstall(context.Background(), []string{"extra"}, &out, &errs); code != 2 {
		t.Errorf("install with an argument: exit %d, want 2", code)
	}
}

// The desktop entry, the icon and the window must share the packaged
// app's ID, or desktops treat them as different applications.
func TestAppIDMatchesFyneApp(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "FyneApp.toml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if k, v, ok := strings.Cut(strings.TrimSpace(line), "="); ok && strings.TrimSpace(k) == "ID" {
			if id := strings.Trim(strings.TrimSpace(v), `"`); id != platform.AppID {
				t.Fatalf("FyneApp.toml ID = %q, platform.AppID = %q", id, platform.AppID)
			}
			return
		}
	}
	t.Fatal("FyneApp.toml has no ID")
}
