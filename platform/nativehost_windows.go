package platform

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/windows"
	"golang.org/x/sys/windows/registry"

	"braid/engine/rootfile"
)

// winHostKeys are the per-user registry keys under which each browser
// looks up a native messaging host by name; the key's default value is
// the manifest's path.
var winHostKeys = []struct {
	browser, key string
	firefox      bool
}{
	{"Google Chrome", `Software\Google\Chrome\NativeMessagingHosts`, false},
	{"Chromium", `Software\Chromium\NativeMessagingHosts`, false},
	{"Brave", `Software\BraveSoftware\Brave-Browser\NativeMessagingHosts`, false},
	{"Microsoft Edge", `Software\Microsoft\Edge\NativeMessagingHosts`, false},
	{"Vivaldi", `Software\Vivaldi\NativeMessagingHosts`, false},
	{"Firefox", `Software\Mozilla\NativeMessagingHosts`, true},
}

// winHostDir is where the manifests and the launcher live.
func winHostDir() (string, error) {
	base := os.Getenv("LOCALAPPDATA")
	if base == "" {
		return "", errors.New("native messaging hosts: LOCALAPPDATA is not set")
	}
	return filepath.Join(base, "Braid", "NativeMessagingHosts"), nil
}

// RegisterNativeHost writes h's manifests (one for the Chromium family,
// one for Firefox) to %LOCALAPPDATA%\Braid\NativeMessagingHosts and names
// them under each browser's key in HKCU; a browser that is not installed
// never reads its key. With h.Args a launcher .cmd is written first.
func RegisterNativeHost(h NativeHost) (notes []string, err error) {
	if err := h.check(); err != nil {
		return nil, err
	}
	dir, err := winHostDir()
	if err != nil {
		return nil, err
	}
	program := h.Exe
	if len(h.Args) > 0 {
		program = filepath.Join(dir, "native-host.cmd")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("native messaging host launcher: %w", err)
		}
		if err := writeHostFile(program, []byte(winLauncher(h.Exe, h.Args)), 0o755); err != nil {
			return nil, fmt.Errorf("native messaging host launcher: %w", err)
		}
	}
	places := []hostPlace{
		{browser: "Chromium-based browsers", found: dir, dir: filepath.Join(dir, "chrome")},
		{browser: "Firefox", found: dir, dir: filepath.Join(dir, "firefox"), firefox: true},
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	written := map[bool]string{}
	for _, p := range places {
		w, _, err := h.writeManifests([]hostPlace{p}, program)
		if err != nil {
			return nil, err
		}
		if len(w) == 1 {
			written[p.firefox] = w[0]
		}
	}
	for _, k := range winHostKeys {
		manifest, ok := written[k.firefox]
		if !ok {
			continue
		}
		key, _, err := registry.CreateKey(registry.CURRENT_USER, k.key+`\`+h.Name, registry.SET_VALUE)
		if err != nil {
			return notes, fmt.Errorf("register the extension's host with %s: %w", k.browser, err)
		}
		err = key.SetStringValue("", manifest)
		key.Close()
		if err != nil {
			return notes, fmt.Errorf("register the extension's host with %s: %w", k.browser, err)
		}
		notes = append(notes, fmt.Sprintf("registered the browser extension's host with %s", k.browser))
	}
	return notes, nil
}

// UnregisterNativeHost removes what RegisterNativeHost wrote: h's key
// under each browser's, and the browser keys above it that it was the
// last of (a browser's key that holds anything else stays); the
// manifests and the launcher, and the folders they leave empty up to
// %LOCALAPPDATA%\Braid (which holds the queue when there is one). Files
// it did not write stay, and so do their folders.
func UnregisterNativeHost(h NativeHost) error {
	var errs []error
	for _, k := range winHostKeys {
		err := registry.DeleteKey(registry.CURRENT_USER, k.key+`\`+h.Name)
		switch {
		case errors.Is(err, registry.ErrNotExist):
			// Not registered with this browser: its keys are not ours.
		case err != nil:
			errs = append(errs, fmt.Errorf("unregister the extension's host from %s: %w", k.browser, err))
		default:
			errs = append(errs, removeEmptyKeys(k.key, "Software"))
		}
	}
	if dir, err := winHostDir(); err == nil {
		errs = append(errs, removeHostFiles(dir, h.Name))
	}
	return errors.Join(errs...)
}

// removeHostFiles removes the launcher and the manifests of the host name
// from dir, with engine/rootfile's removal (inside dir only, and working
// under Wine too), then the folders left empty: dir's own, dir, and its
// parent. A folder that still holds something stays.
func removeHostFiles(dir, name string) error {
	root, err := os.OpenRoot(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("remove the extension's host: %w", err)
	}
	var errs []error
	for _, f := range []string{"native-host.cmd", "chrome/" + name + ".json", "firefox/" + name + ".json"} {
		if err := rootfile.Remove(root, f); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, fmt.Errorf("remove the extension's host: %w", err))
		}
	}
	root.Close()
	for _, d := range []string{filepath.Join(dir, "chrome"), filepath.Join(dir, "firefox")} {
		removeEmptyDir(d)
	}
	if removeEmptyDir(dir) {
		removeEmptyDir(filepath.Dir(dir))
	}
	return errors.Join(errs...)
}

// removeEmptyDir removes the folder dir when it is empty and reports
// whether it is gone. RemoveDirectory removes nothing else: not a file, not
// a folder that holds anything. (os.Root.Remove would need the call Wine 8
// lacks, see engine/rootfile, and rootfile removes files only.)
func removeEmptyDir(dir string) bool {
	p, err := windows.UTF16PtrFromString(dir)
	if err != nil {
		return false
	}
	err = windows.RemoveDirectory(p)
	return err == nil || errors.Is(err, windows.ERROR_FILE_NOT_FOUND) || errors.Is(err, windows.ERROR_PATH_NOT_FOUND)
}

// winLauncher is a .cmd that starts exe with args and the browser's
// arguments.
func winLauncher(exe string, args []string) string {
	var b strings.Builder
	b.WriteString("@echo off\r\n")
	b.WriteString(`"` + exe + `"`)
	for _, a := range args {
		b.WriteString(` "` + a + `"`)
	}
	b.WriteString(" %*\r\n")
	return b.String()
}
