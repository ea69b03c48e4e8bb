package platform

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// NativeHost is Braid's native messaging host as the browsers register it
// (developer.chrome.com/docs/extensions/develop/concepts/native-messaging,
// MDN "Native manifests"): a manifest per browser family naming the
// program to start and the extensions that may start it.
type NativeHost struct {
	// Name is the host's name, the one extensions call
	// (nativehost.Name).
	Name        string
	Description string
	// Exe is the absolute path of the braid binary and Args what goes
	// before the browser's own arguments (["native-host"]). A manifest
	// names a program but no arguments, so with Args a small launcher is
	// written next to Braid's data and the manifests name it.
	Exe  string
	Args []string
	// ChromeOrigins are the Chromium-family extensions allowed to start
	// the host ("chrome-extension://ID/"); FirefoxIDs the Firefox ones.
	ChromeOrigins []string
	FirefoxIDs    []string
}

// hostPlace is where one browser looks for host manifests.
type hostPlace struct {
	browser string
	// found is a folder that exists when the browser was ever run by
	// this user; dir is where its manifests go.
	found, dir string
	firefox    bool
}

// chromeManifest and firefoxManifest are the two manifest shapes.
type chromeManifest struct {
	Name           string   `json:"name"`
	Description    string   `json:"description"`
	Path           string   `json:"path"`
	Type           string   `json:"type"`
	AllowedOrigins []string `json:"allowed_origins"`
}

type firefoxManifest struct {
	Name              string   `json:"name"`
	Description       string   `json:"description"`
	Path              string   `json:"path"`
	Type              string   `json:"type"`
	AllowedExtensions []string `json:"allowed_extensions"`
}

func (h NativeHost) check() error {
	switch {
	case h.Name == "":
		return errors.New("native messaging host: no name")
	case !filepath.IsAbs(h.Exe):
		return fmt.Errorf("native messaging host: %q is not an absolute path", h.Exe)
	case len(h.ChromeOrigins) == 0 && len(h.FirefoxIDs) == 0:
		return errors.New("native messaging host: no extension may call it")
	}
	for _, o := range h.ChromeOrigins {
		if !strings.HasPrefix(o, "chrome-extension://") || !strings.HasSuffix(o, "/") || strings.Contains(o, "*") {
			return fmt.Errorf("native messaging host: %q is not an extension origin (chrome-extension://ID/)", o)
		}
	}
	return nil
}

// manifest is the JSON of h's manifest for one browser family, naming
// program as the host.
func (h NativeHost) manifest(program string, firefox bool) ([]byte, error) {
	desc := h.Description
	if desc == "" {
		desc = "Braid download manager"
	}
	var v any
	if firefox {
		v = firefoxManifest{h.Name, desc, program, "stdio", h.FirefoxIDs}
	} else {
		v = chromeManifest{h.Name, desc, program, "stdio", h.ChromeOrigins}
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// writeManifests writes h's manifest, naming program, into the place of
// every browser found; the notes say which and what was skipped.
func (h NativeHost) writeManifests(places []hostPlace, program string) (written []string, notes []string, err error) {
	for _, p := range places {
		if (p.firefox && len(h.FirefoxIDs) == 0) || (!p.firefox && len(h.ChromeOrigins) == 0) {
			continue
		}
		if _, err := os.Stat(p.found); err != nil {
			continue
		}
		b, err := h.manifest(program, p.firefox)
		if err != nil {
			return written, notes, err
		}
		if err := os.MkdirAll(p.dir, 0o755); err != nil {
			return written, notes, fmt.Errorf("%s's native messaging folder: %w", p.browser, err)
		}
		path := filepath.Join(p.dir, h.Name+".json")
		if err := writeHostFile(path, b, 0o644); err != nil {
			return written, notes, fmt.Errorf("%s's native messaging host: %w", p.browser, err)
		}
		written = append(written, path)
		notes = append(notes, fmt.Sprintf("registered the browser extension's host with %s", p.browser))
	}
	if len(written) == 0 {
		notes = append(notes, "no browser found to register the extension's host with (run a browser once, then braid install again)")
	}
	return written, notes, nil
}

// writeHostFile writes through a temporary file and a rename, so a
// browser never reads half a manifest.
func writeHostFile(path string, b []byte, perm os.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // after the rename: nothing to remove
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(perm); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
