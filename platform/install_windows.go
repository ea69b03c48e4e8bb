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
// defaults only where they still point at Braid. An extension's key that
// Braid's values were the last of goes too; one that still holds another
// program's values or keys stays, with them.
func Unregister(_ context.Context, exe string, _ map[int][]byte) ([]string, error) {
	var errs []error
	for _, c := range winClasses {
		errs = append(errs, deleteTree(c.progID))
		ext := classesKey + `\` + c.ext
		if k, err := registry.OpenKey(registry.CURRENT_USER, ext, registry.QUERY_VALUE|registry.SET_VALUE); err == nil {
			if v, _, err := k.GetStringValue(""); err == nil && v == c.progID {
				errs = append(errs, k.DeleteValue(""))
			}
			// The content type Register set, unless another program
			// owns the extension now.
			_, _, noDefault := k.GetStringValue("")
			if v, _, err := k.GetStringValue("Content Type"); err == nil && v == c.contentType && errors.Is(noDefault, registry.ErrNotExist) {
				errs = append(errs, k.DeleteValue("Content Type"))
			}
			k.Close()
		}
		if k, err := registry.OpenKey(registry.CURRENT_USER, ext+`\OpenWithProgids`, registry.SET_VALUE); err == nil {
			if err := k.DeleteValue(c.progID); err != nil && !errors.Is(err, registry.ErrNotExist) {
				errs = append(errs, err)
			}
			k.Close()
		}
		errs = append(errs, removeEmptyKeys(ext+`\OpenWithProgids`, classesKey))
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

// removeEmptyKeys deletes the HKCU key path when it holds no value and no
// key, then its parent on the same terms, and so on up to, not including,
// top: the keys Braid's were the last of. An absent key is passed over; it
// stops at the first key that holds something (another program's).
func removeEmptyKeys(path, top string) error {
	for ; path != top && strings.HasPrefix(path, top+`\`); path = path[:strings.LastIndex(path, `\`)] {
		k, err := registry.OpenKey(registry.CURRENT_USER, path, registry.QUERY_VALUE|registry.ENUMERATE_SUB_KEYS)
		if errors.Is(err, registry.ErrNotExist) {
			continue
		}
		if err != nil {
			return fmt.Errorf(`HKCU\%s: %w`, path, err)
		}
		info, err := k.Stat()
		k.Close()
		if err != nil {
			return fmt.Errorf(`HKCU\%s: %w`, path, err)
		}
		if info.SubKeyCount > 0 || info.ValueCount > 0 {
			return nil
		}
		if err := registry.DeleteKey(registry.CURRENT_USER, path); err != nil && !errors.Is(err, registry.ErrNotExist) {
			return fmt.Errorf(`remove the empty key HKCU\%s: %w`, path, err)
		}
	}
	return nil
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
