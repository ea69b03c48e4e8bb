//go:build !windows && !darwin

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

// braid install writes a desktop entry that runs this binary and the
// icons under XDG_DATA_HOME; braid uninstall removes the entry. The
// Windows form, with the registry, is in install_windows_test.go.
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
