//go:build unix && !darwin

package platform

import (
	"bufio"
	"errors"
	"fmt"
	"mime"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
)

// OpenAs opens target (a file's path, or an http URL that serves it) with
// the desktop's application for files named name: a .part with the
// player of its final .mkv, say. It returns once the application was
// started (or xdg-open took the file); the error says why it was not.
// See openas.go.
func OpenAs(target, name string) error {
	if !isURL(target) {
		link, err := linkAs(target, name)
		if err != nil {
			return err
		}
		target = link
	}
	typ := mime.TypeByExtension(filepath.Ext(name))
	typ, _, _ = strings.Cut(typ, ";")
	app, err := defaultApp(strings.TrimSpace(typ), filepath.Base(name))
	if err == nil {
		var args []string
		if args, err = app.command(target); err == nil {
			cmd := exec.Command(args[0], args[1:]...)
			// Its own session: the application outlives Braid, as one
			// the desktop started would.
			cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
			if err = cmd.Start(); err == nil {
				go cmd.Wait()
				return nil
			}
			err = fmt.Errorf("start %s: %w", app.path, err)
		}
	}
	if isURL(target) {
		return err
	}
	// xdg-open may still find an application by the file's contents.
	if xerr := run("xdg-open", target); xerr != nil {
		return errors.Join(err, xerr)
	}
	return nil
}

// desktopApp is an application's .desktop file, as far as starting it
// goes.
type desktopApp struct {
	path, exec, name, icon string
	terminal               bool
}

// defaultApp finds the desktop's default application for MIME type typ
// (of files named like name):
// the .desktop file `xdg-mime query default` names, in the applications
// folder of $XDG_DATA_HOME or of one of $XDG_DATA_DIRS.
func defaultApp(typ, name string) (*desktopApp, error) {
	if typ == "" {
		return nil, fmt.Errorf("the system knows no type of file named like %s", name)
	}
	out, err := exec.Command("xdg-mime", "query", "default", typ).Output()
	if err != nil {
		return nil, fmt.Errorf("xdg-mime query default %s: %w", typ, err)
	}
	id := strings.TrimSpace(string(out))
	if id == "" || strings.ContainsAny(id, "/\n") || !strings.HasSuffix(id, ".desktop") {
		return nil, fmt.Errorf("no application is set for %s files", typ)
	}
	for _, dir := range dataDirs() {
		for _, p := range desktopPaths(filepath.Join(dir, "applications"), id) {
			app, err := readDesktop(p)
			if errors.Is(err, os.ErrNotExist) {
				continue
			}
			return app, err
		}
	}
	return nil, fmt.Errorf("the application for %s files, %s, is not installed", typ, id)
}

// dataDirs are the folders .desktop files are looked for under, first
// the user's: $XDG_DATA_HOME (~/.local/share), then $XDG_DATA_DIRS
// (/usr/local/share, /usr/share).
func dataDirs() []string {
	home := os.Getenv("XDG_DATA_HOME")
	if home == "" {
		if h, err := os.UserHomeDir(); err == nil {
			home = filepath.Join(h, ".local", "share")
		}
	}
	sys := os.Getenv("XDG_DATA_DIRS")
	if sys == "" {
		sys = "/usr/local/share:/usr/share"
	}
	var dirs []string
	for _, d := range append([]string{home}, filepath.SplitList(sys)...) {
		if filepath.IsAbs(d) {
			dirs = append(dirs, d)
		}
	}
	return dirs
}

// desktopPaths are where the file of desktop ID id may be under apps: at
// its name, or in a subfolder for each dash ("kde-okular.desktop" may be
// kde/okular.desktop).
func desktopPaths(apps, id string) []string {
	paths := []string{filepath.Join(apps, id)}
	for i := range len(id) {
		if id[i] == '-' {
			paths = append(paths, filepath.Join(apps, id[:i], id[i+1:]))
		}
	}
	return paths
}

// readDesktop reads the [Desktop Entry] group of the .desktop file at p.
func readDesktop(p string) (*desktopApp, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	app := &desktopApp{path: p}
	group := ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "[") {
			group = line
			continue
		}
		if group != "[Desktop Entry]" {
			continue
		}
		key, value, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		key, value = strings.TrimSpace(key), strings.TrimSpace(value)
		switch key {
		case "Exec":
			app.exec = value
		case "Name":
			app.name = value
		case "Icon":
			app.icon = value
		case "Terminal":
			app.terminal = value == "true"
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", p, err)
	}
	if app.exec == "" {
		return nil, fmt.Errorf("%s has no Exec line", p)
	}
	return app, nil
}

// command is the application's command line for target, from its Exec
// line as the Desktop Entry Specification reads it: the string escapes
// undone, the line split into arguments (double quotes group, and a
// backslash in them escapes ", `, $ and \), the field codes expanded:
// %f %F %u %U to target, %i to --icon and the icon, %c to the name, %k
// to the file's path, %% to %; the deprecated ones dropped. An Exec line
// without a file code has target added at its end.
func (a *desktopApp) command(target string) ([]string, error) {
	if a.terminal {
		return nil, fmt.Errorf("%s runs in a terminal, which Braid does not start", a.path)
	}
	words, err := splitExec(unescapeString(a.exec))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", a.path, err)
	}
	var args []string
	given := false
	for _, w := range words {
		switch w {
		case "%f", "%F", "%u", "%U":
			args, given = append(args, target), true
			continue
		case "%i":
			if a.icon != "" {
				args = append(args, "--icon", a.icon)
			}
			continue
		}
		var b strings.Builder
		dropped := false
		for i := 0; i < len(w); i++ {
			if w[i] != '%' || i+1 == len(w) {
				b.WriteByte(w[i])
				continue
			}
			i++
			switch w[i] {
			case '%':
				b.WriteByte('%')
			case 'f', 'F', 'u', 'U':
				b.WriteString(target)
				given = true
			case 'c':
				b.WriteString(a.name)
			case 'k':
				b.WriteString(a.path)
			default: // deprecated (%d %D %n %N %v %m) or unknown
				dropped = true
			}
		}
		if b.Len() > 0 || !dropped {
			args = append(args, b.String())
		}
	}
	if len(args) == 0 {
		return nil, fmt.Errorf("%s has an empty Exec line", a.path)
	}
	if !given {
		args = append(args, target)
	}
	return args, nil
}

// unescapeString undoes a desktop file's string escapes: \s \n \t \r \\.
// Other backslashes stay for the Exec quoting rules.
func unescapeString(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		switch s[i+1] {
		case 's':
			b.WriteByte(' ')
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case '\\':
			b.WriteByte('\\')
		default:
			b.WriteByte('\\')
			b.WriteByte(s[i+1])
		}
		i++
	}
	return b.String()
}

// splitExec splits an Exec line into its arguments: spaces separate
// them, double quotes group one, and inside quotes a backslash escapes
// the next character.
func splitExec(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	in, quoted := false, false // in a word; in quotes
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quoted && c == '\\' && i+1 < len(s):
			i++
			cur.WriteByte(s[i])
		case quoted && c == '"':
			quoted = false
		case quoted:
			cur.WriteByte(c)
		case c == '"':
			quoted, in = true, true
		case c == ' ' || c == '\t' || c == '\n':
			if in {
				words = append(words, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteByte(c)
			in = true
		}
	}
	if quoted {
		return nil, errors.New("its Exec line has a quote that is not closed")
	}
	if in {
		words = append(words, cur.String())
	}
	return words, nil
}
