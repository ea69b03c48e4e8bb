//go:build !windows && !darwin

package platform

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// MIMETypes are what Braid opens: Metalink 4, Metalink 3, torrents and
// magnet links.
var MIMETypes = []string{
	"application/metalink4+xml",
	"application/metalink+xml",
	"application/x-bittorrent",
	"x-scheme-handler/magnet",
}

// Register makes Braid the user's handler for MIMETypes: on a
// freedesktop.org desktop through its XDG folders (see Desktop). exe is the
// absolute path of the braid binary, icons its PNG icons by size. The notes
// say what was skipped (a desktop tool that is not installed).
func Register(ctx context.Context, exe string, icons map[int][]byte) (notes []string, err error) {
	d, err := DesktopFor(os.Getenv, exe, icons)
	if err != nil {
		return nil, err
	}
	return d.Install(ctx)
}

// Unregister undoes Register.
func Unregister(ctx context.Context, exe string, icons map[int][]byte) (notes []string, err error) {
	d, err := DesktopFor(os.Getenv, exe, icons)
	if err != nil {
		return nil, err
	}
	return d.Uninstall(ctx)
}

// Desktop registers Braid with a freedesktop.org desktop (Linux, BSD) for
// one user: a .desktop entry, shared-mime-info definitions for the
// Metalink types, icons, and Braid as their default application. It needs
// no root; everything lives under the user's XDG folders.
type Desktop struct {
	DataHome   string         // $XDG_DATA_HOME, or ~/.local/share
	ConfigHome string         // $XDG_CONFIG_HOME, or ~/.config
	Exec       string         // absolute path of the braid binary
	Icons      map[int][]byte // PNG icons by edge length in pixels
	Env        []string       // environment for the desktop tools; nil: os.Environ()
}

// DesktopFor returns the Desktop of the user whose environment getenv reads.
func DesktopFor(getenv func(string) string, exe string, icons map[int][]byte) (Desktop, error) {
	d := Desktop{
		DataHome:   getenv("XDG_DATA_HOME"),
		ConfigHome: getenv("XDG_CONFIG_HOME"),
		Exec:       exe,
		Icons:      icons,
	}
	home := getenv("HOME")
	if d.DataHome == "" || d.ConfigHome == "" {
		if home == "" {
			return d, errors.New("neither XDG_DATA_HOME and XDG_CONFIG_HOME nor HOME is set")
		}
	}
	if d.DataHome == "" {
		d.DataHome = filepath.Join(home, ".local", "share")
	}
	if d.ConfigHome == "" {
		d.ConfigHome = filepath.Join(home, ".config")
	}
	return d, nil
}

func (d Desktop) desktopFile() string {
	return filepath.Join(d.DataHome, "applications", AppID+".desktop")
}

func (d Desktop) mimePackage() string {
	return filepath.Join(d.DataHome, "mime", "packages", AppID+".xml")
}

func (d Desktop) iconFile(size int) string {
	dim := fmt.Sprintf("%dx%d", size, size)
	return filepath.Join(d.DataHome, "icons", "hicolor", dim, "apps", AppID+".png")
}

// Install writes the entry, the MIME definitions and the icons, then asks
// the desktop's own tools (update-mime-database, update-desktop-database,
// xdg-mime) to take them in. A missing tool is not an error: the files work
// once the desktop rescans; the returned notes say what was skipped.
func (d Desktop) Install(ctx context.Context) (notes []string, err error) {
	if !filepath.IsAbs(d.Exec) {
		return nil, fmt.Errorf("the braid binary's path %q is not absolute", d.Exec)
	}
	files := map[string][]byte{
		d.desktopFile(): []byte(d.entry()),
		d.mimePackage(): []byte(mimeXML),
	}
	for size, png := range d.Icons {
		files[d.iconFile(size)] = png
	}
	for path, data := range files {
		if err := writeFileAtomic(path, data); err != nil {
			return nil, err
		}
	}
	notes = d.refresh(ctx)
	for _, t := range MIMETypes {
		if n := d.tool(ctx, "xdg-mime", "default", AppID+".desktop", t); n != "" {
			notes = append(notes, n)
			break
		}
	}
	return notes, nil
}

// Uninstall removes what Install wrote and Braid's default-application
// lines from the user's mimeapps.list files; other applications' lines stay.
func (d Desktop) Uninstall(ctx context.Context) (notes []string, err error) {
	paths := []string{d.desktopFile(), d.mimePackage()}
	for size := range d.Icons {
		paths = append(paths, d.iconFile(size))
	}
	for _, p := range paths {
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, err
		}
	}
	for _, list := range []string{
		filepath.Join(d.ConfigHome, "mimeapps.list"),
		filepath.Join(d.DataHome, "applications", "mimeapps.list"),
	} {
		if err := dropAssociations(list, AppID+".desktop"); err != nil {
			return nil, err
		}
	}
	return d.refresh(ctx), nil
}

func (d Desktop) refresh(ctx context.Context) []string {
	var notes []string
	if n := d.tool(ctx, "update-mime-database", filepath.Join(d.DataHome, "mime")); n != "" {
		notes = append(notes, n)
	}
	if n := d.tool(ctx, "update-desktop-database", filepath.Join(d.DataHome, "applications")); n != "" {
		notes = append(notes, n)
	}
	return notes
}

// tool runs a desktop tool with the user's XDG folders, returning a note
// when it is missing or fails.
func (d Desktop) tool(ctx context.Context, name string, args ...string) string {
	path, err := exec.LookPath(name)
	if err != nil {
		return fmt.Sprintf("%s is not installed; the desktop will pick the change up when it rescans", name)
	}
	env := d.Env
	if env == nil {
		env = os.Environ()
	}
	env = append(env[:len(env):len(env)], "XDG_DATA_HOME="+d.DataHome, "XDG_CONFIG_HOME="+d.ConfigHome)
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Env = env
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Sprintf("%s %s: %v: %s", name, strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
	return ""
}

// entry is the .desktop file (Desktop Entry Specification 1.5).
func (d Desktop) entry() string {
	return `[Desktop Entry]
Type=Application
Version=1.4
Name=Braid
GenericName=Download Manager
Comment=Download big files from many mirrors at once, verified piece by piece
Exec=` + quoteExec(d.Exec) + ` %U
Icon=` + AppID + `
Terminal=false
Categories=Network;FileTransfer;
Keywords=download;metalink;mirror;torrent;iso;
MimeType=` + strings.Join(MIMETypes, ";") + `;
StartupNotify=true
`
}

// quoteExec quotes a path for an Exec key: inside double quotes, `"`, "`",
// "$" and "\" are escaped with a backslash, and the key's own string
// escaping doubles each backslash again.
func quoteExec(path string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range path {
		switch r {
		case '"', '`', '$':
			b.WriteString(`\\`)
		case '\\':
			b.WriteString(`\\\\`)
			continue
		}
		b.WriteRune(r)
	}
	b.WriteByte('"')
	return b.String()
}

// mimeXML teaches shared-mime-info the Metalink types, by extension and by
// the document's root element. Torrents and magnet links are known already.
const mimeXML = `<?xml version="1.0" encoding="UTF-8"?>
<mime-info xmlns="http://www.freedesktop.org/standards/shared-mime-info">
  <mime-type type="application/metalink4+xml">
    <comment>Metalink 4 download description</comment>
    <sub-class-of type="application/xml"/>
    <glob pattern="*.meta4"/>
    <root-XML namespaceURI="urn:ietf:params:xml:ns:metalink" localName="metalink"/>
  </mime-type>
  <mime-type type="application/metalink+xml">
    <comment>Metalink download description</comment>
    <sub-class-of type="application/xml"/>
    <glob pattern="*.metalink"/>
    <root-XML namespaceURI="http://www.metalinker.org/" localName="metalink"/>
  </mime-type>
</mime-info>
`

// dropAssociations removes entries naming app from a mimeapps.list: whole
// "type=app" lines, and app from the lists of "type=a;app;b;" lines.
func dropAssociations(path, app string) error {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	var out strings.Builder
	sc := bufio.NewScanner(strings.NewReader(string(data)))
	changed := false
	for sc.Scan() {
		line := sc.Text()
		key, value, ok := strings.Cut(line, "=")
		if ok && !strings.HasPrefix(strings.TrimSpace(line), "#") {
			var kept []string
			for _, v := range strings.Split(value, ";") {
				if v != "" && strings.TrimSpace(v) != app {
					kept = append(kept, v)
				}
			}
			if len(kept) != len(strings.FieldsFunc(value, func(r rune) bool { return r == ';' })) {
				changed = true
				if len(kept) == 0 {
					continue
				}
				line = key + "=" + strings.Join(kept, ";") + ";"
			}
		}
		out.WriteString(line)
		out.WriteByte('\n')
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("reading %s: %w", path, err)
	}
	if !changed {
		return nil
	}
	return writeFileAtomic(path, []byte(out.String()))
}

// writeFileAtomic writes data to path through a temporary file and a
// rename, so a desktop reading the file never sees half of it.
func writeFileAtomic(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".braid-*")
	if err != nil {
		return err
	}
	_, werr := tmp.Write(data)
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return nil
}
