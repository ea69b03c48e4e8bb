package ui

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/driver"
	"fyne.io/fyne/v2/storage"
	"github.com/ncruces/zenity"
)

// A PathChooser asks the user for a file to open or a folder. Each
// method returns at once; chosen gets the path on the UI goroutine, and
// is not called when the user cancels.
type PathChooser interface {
	// ChooseFile asks for a file, starting in dir (none: the chooser's
	// own), offering only names that end in one of exts (none: any).
	ChooseFile(parent fyne.Window, title, dir string, exts []string, chosen func(path string))
	// ChooseFolder asks for a folder, starting in dir.
	ChooseFolder(parent fyne.Window, title, dir string, chosen func(path string))
}

// newChooser is the file chooser the window, the picker and Settings
// use: the system's own dialog (one where a path can be typed) where
// there is one, else Fyne's; shown (may be nil) gets Fyne's dialog once it
// shows.
func newChooser(shown func(dialog.Dialog)) PathChooser {
	return SystemChooser{Fallback: FyneChooser{Shown: shown}}
}

// SystemChooser shows the system's file dialog: zenity (or qarma,
// matedialog) on Linux and the BSDs, the native one on Windows and macOS.
// When there is none, or it fails to start, Fallback asks instead.
type SystemChooser struct{ Fallback PathChooser }

// systemDialog reports whether the system's dialog can show: a program
// for it is there, the user did not ask for Fyne's (BRAID_FILE_DIALOG=fyne),
// and on X11 or Wayland there is a display to show it on (zenity with
// none ends as if canceled, and Fyne's dialog would never show).
func systemDialog() bool {
	if strings.EqualFold(os.Getenv("BRAID_FILE_DIALOG"), "fyne") {
		return false
	}
	if runtime.GOOS != "windows" && runtime.GOOS != "darwin" &&
		os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "" {
		return false
	}
	return zenity.IsAvailable()
}

// ChooseFile implements PathChooser.
func (c SystemChooser) ChooseFile(parent fyne.Window, title, dir string, exts []string, chosen func(string)) {
	if !systemDialog() {
		c.Fallback.ChooseFile(parent, title, dir, exts, chosen)
		return
	}
	opts := c.options(parent, title, dir)
	if len(exts) > 0 {
		var patterns []string
		for _, e := range exts {
			patterns = append(patterns, "*"+e)
		}
		opts = append(opts, zenity.FileFilters{{Name: strings.Join(patterns, " "), Patterns: patterns, CaseFold: true}})
	}
	c.run(func() (string, error) { return zenity.SelectFile(opts...) }, chosen, func() {
		c.Fallback.ChooseFile(parent, title, dir, exts, chosen)
	})
}

// ChooseFolder implements PathChooser.
func (c SystemChooser) ChooseFolder(parent fyne.Window, title, dir string, chosen func(string)) {
	if !systemDialog() {
		c.Fallback.ChooseFolder(parent, title, dir, chosen)
		return
	}
	opts := append(c.options(parent, title, dir), zenity.Directory())
	c.run(func() (string, error) { return zenity.SelectFile(opts...) }, chosen, func() {
		c.Fallback.ChooseFolder(parent, title, dir, chosen)
	})
}

// options are the dialog's title, its starting folder and the window it
// belongs to.
func (SystemChooser) options(parent fyne.Window, title, dir string) []zenity.Option {
	opts := []zenity.Option{zenity.Title(title), zenity.Modal()}
	if dir = existingDir(dir); dir != "" {
		// A trailing separator starts the dialog in the folder, with no
		// name typed.
		opts = append(opts, zenity.Filename(dir+string(filepath.Separator)))
	}
	if nw, ok := parent.(driver.NativeWindow); ok {
		nw.RunNative(func(ctx any) {
			switch ctx := ctx.(type) {
			case driver.X11WindowContext:
				if ctx.WindowHandle != 0 {
					opts = append(opts, zenity.Attach(int(ctx.WindowHandle)))
				}
			case driver.WindowsWindowContext:
				if ctx.HWND != 0 {
					opts = append(opts, zenity.Attach(ctx.HWND))
				}
			}
		})
	}
	return opts
}

// run shows the dialog off the UI goroutine (it blocks until the user
// answers) and hands the path to chosen; a dialog that fails to start
// (not a cancel) gives way to fallback.
func (SystemChooser) run(show func() (string, error), chosen func(string), fallback func()) {
	go func() {
		path, err := inDialogApartment(show)
		switch {
		case errors.Is(err, zenity.ErrCanceled):
		case err != nil:
			fyne.Do(fallback)
		case path != "":
			fyne.Do(func() { chosen(path) })
		}
	}()
}

// FyneChooser is Fyne's own file dialog, over the window. Shown, when
// set, gets the dialog once it shows.
type FyneChooser struct{ Shown func(dialog.Dialog) }

// ChooseFile implements PathChooser.
func (c FyneChooser) ChooseFile(parent fyne.Window, title, dir string, exts []string, chosen func(string)) {
	d := dialog.NewFileOpen(func(r fyne.URIReadCloser, err error) {
		if err != nil || r == nil {
			return
		}
		p := r.URI().Path()
		_ = r.Close()
		chosen(p)
	}, parent)
	if len(exts) > 0 {
		d.SetFilter(storage.NewExtensionFileFilter(exts))
	}
	c.show(d, parent, dir)
}

// ChooseFolder implements PathChooser.
func (c FyneChooser) ChooseFolder(parent fyne.Window, title, dir string, chosen func(string)) {
	d := dialog.NewFolderOpen(func(u fyne.ListableURI, err error) {
		if err == nil && u != nil {
			chosen(u.Path())
		}
	}, parent)
	c.show(d, parent, dir)
}

func (c FyneChooser) show(d *dialog.FileDialog, parent fyne.Window, dir string) {
	if dir = existingDir(dir); dir != "" {
		if l, err := storage.ListerForURI(storage.NewFileURI(dir)); err == nil {
			d.SetLocation(l)
		}
	}
	size := parent.Canvas().Size()
	d.Resize(fyne.NewSize(min(800, size.Width), min(560, size.Height)))
	d.Show()
	if c.Shown != nil {
		c.Shown(d)
	}
}

// existingDir is dir when it is a folder, else the nearest folder above
// it that exists; "" when there is none.
func existingDir(dir string) string {
	if dir == "" {
		return ""
	}
	dir = filepath.Clean(dir)
	for {
		if st, err := os.Stat(dir); err == nil && st.IsDir() {
			return dir
		}
		up := filepath.Dir(dir)
		if up == dir {
			return ""
		}
		dir = up
	}
}

// prefOpenDir is the folder a file was last opened from.
const prefOpenDir = "chooser.dir"

// chooseFolder asks for a folder, starting in dir: with the system's
// dialog, else with Fyne's over parent, which Escape closes (not the
// dialog under it) when parent is a Window's.
func chooseFolder(parent fyne.Window, title, dir string, chosen func(string)) {
	var shown func(dialog.Dialog)
	if w := windowOf(parent.Canvas()); w != nil {
		shown = func(d dialog.Dialog) { w.keyed(d, nil, d.Hide) }
	}
	newChooser(shown).ChooseFolder(parent, title, dir, chosen)
}

// chooseFile asks for a file with Chooser, starting where the last one
// was chosen, and remembers the folder of the one chosen.
func (w *Window) chooseFile(title string, exts []string, chosen func(string)) {
	dir := w.App.Preferences().String(prefOpenDir)
	c := newChooser(func(d dialog.Dialog) { w.keyed(d, nil, d.Hide) })
	c.ChooseFile(w.Win, title, dir, exts, func(path string) {
		w.App.Preferences().SetString(prefOpenDir, filepath.Dir(path))
		chosen(path)
	})
}
