package platform

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"golang.org/x/sys/windows/registry"
)

// Windows keeps per-user file classes under HKCU\Software\Classes: no
// administrator rights are needed, and they take precedence over the
// machine-wide ones.
const classesKey = `Software\Classes`

type winClass struct {
	ext, progID, description, contentType string
}

var winClasses = []winClass{
	{".meta4", "Braid.meta4", "Metalink 4 download", "application/metalink4+xml"},
	{".metalink", "Braid.metalink", "Metalink download", "application/metalink+xml"},
	{".torrent", "Braid.torrent", "BitTorrent download", "application/x-bittorrent"},
}

// Register makes Braid the current user's handler for .meta4, .metalink and
// .torrent files and magnet: links.
func Register(_ context.Context, exe string, _ map[int][]byte) ([]string, error) {
	open := `"` + exe + `" "%1"`
	for _, c := range winClasses {
		if err := setValues(c.progID, map[string]string{"": c.description}); err != nil {
			return nil, err
		}
		if err := setValues(c.progID+`\DefaultIcon`, map[string]string{"": exe + ",0"}); err != nil {
			return nil, err
		}
		if err := setValues(c.progID+`\shell\open\command`, map[string]string{"": open}); err != nil {
			return nil, err
		}
		if err := setValues(c.ext, map[string]string{"": c.progID, "Content Type": c.contentType}); err != nil {
			return nil, err
		}
		if err := setValues(c.ext+`\OpenWithProgids`, map[string]string{c.progID: ""}); err != nil {
			return nil, err
		}
	}
	if err := setValues("magnet", map[string]string{"": "URL:Magnet link", "URL Protocol": ""}); err != nil {
		return nil, err
	}
	if err := setValues(`magnet\shell\open\command`, map[string]string{"": open}); err != nil {
		return nil, err
	}
	return []string{"Windows may ask once which application opens these files; choose Braid"}, nil
}

// Unregister removes Braid's classes, and the extensions' and magnet's
// defaults only where they still point at Braid.
func Unregister(_ context.Context, exe string, _ map[int][]byte) ([]string, error) {
	var errs []error
	for _, c := range winClasses {
		errs = append(errs, deleteTree(c.progID))
		if k, err := registry.OpenKey(registry.CURRENT_USER, classesKey+`\`+c.ext, registry.ALL_ACCESS); err == nil {
			if v, _, err := k.GetStringValue(""); err == nil && v == c.progID {
				errs = append(errs, k.DeleteValue(""))
			}
			k.Close()
		}
		if k, err := registry.OpenKey(registry.CURRENT_USER, classesKey+`\`+c.ext+`\OpenWithProgids`, registry.ALL_ACCESS); err == nil {
			if err := k.DeleteValue(c.progID); err != nil && !errors.Is(err, registry.ErrNotExist) {
				errs = append(errs, err)
			}
			k.Close()
		}
	}
	if k, err := registry.OpenKey(registry.CURRENT_USER, classesKey+`\magnet\shell\open\command`, registry.QUERY_VALUE); err == nil {
		v, _, _ := k.GetStringValue("")
		k.Close()
		if strings.Contains(v, exe) {
			errs = append(errs, deleteTree("magnet"))
		}
	}
	return nil, errors.Join(errs...)
}

func setValues(path string, values map[string]string) error {
	k, _, err := registry.CreateKey(registry.CURRENT_USER, classesKey+`\`+path, registry.ALL_ACCESS)
	if err != nil {
		return fmt.Errorf(`HKCU\%s\%s: %w`, classesKey, path, err)
	}
	defer k.Close()
	for name, v := range values {
		if err := k.SetStringValue(name, v); err != nil {
			return fmt.Errorf(`HKCU\%s\%s %q: %w`, classesKey, path, name, err)
		}
	}
	return nil
}

// deleteTree deletes a key below classesKey and everything under it.
func deleteTree(path string) error {
	full := classesKey + `\` + path
	k, err := registry.OpenKey(registry.CURRENT_USER, full, registry.ENUMERATE_SUB_KEYS)
	if errors.Is(err, registry.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	subs, err := k.ReadSubKeyNames(-1)
	k.Close()
	if err != nil {
		return err
	}
	for _, s := range subs {
		if err := deleteTree(path + `\` + s); err != nil {
			return err
		}
	}
	if err := registry.DeleteKey(registry.CURRENT_USER, full); err != nil && !errors.Is(err, registry.ErrNotExist) {
		return err
	}
	return nil
}
