package platform

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/windows/registry"
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

// UnregisterNativeHost removes what RegisterNativeHost wrote.
func UnregisterNativeHost(h NativeHost) error {
	var errs []error
	for _, k := range winHostKeys {
		err := registry.DeleteKey(registry.CURRENT_USER, k.key+`\`+h.Name)
		if err != nil && !errors.Is(err, registry.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	if dir, err := winHostDir(); err == nil {
		if err := os.RemoveAll(dir); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
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
