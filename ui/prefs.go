package ui

import (
	"fmt"
	"math"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/widget"

	"braid/assets"
)

// What the window keeps about itself in Fyne's preferences (in the
// user's config folder, by the app's ID): how it looks and where the user
// last saved. The Backend's settings are the queue's and the engine's.
const (
	prefTheme   = "theme"      // a ThemeMode
	prefLastDir = "picker.dir" // the folder last chosen in a picker
	// The window's size and where its split divides the queue from the
	// details (a fraction), as the user left them.
	prefWidth  = "window.width"
	prefHeight = "window.height"
	prefSplit  = "window.split"
)

// restoreGeometry gives the window the size and the split it had when
// the user last changed them; a size too small to use or too large for
// any screen is not taken. Later changes are kept as they happen
// (keepSize, keepSplit): a window closed by the system keeps them too.
func (w *Window) restoreGeometry() {
	p := w.App.Preferences()
	w.asked = fyne.NewSize(1100, 720)
	width, height := p.Float(prefWidth), p.Float(prefHeight)
	if width >= 480 && height >= 320 && width <= 16384 && height <= 16384 {
		w.asked = fyne.NewSize(float32(width), float32(height))
	}
	w.Win.Resize(w.asked)
	if o := p.Float(prefSplit); o >= 0.05 && o <= 0.95 {
		w.Split.Offset = o
	}
	w.restored = time.Now()
}

// keepGeometry is restoreGeometry for a window taken over (Options.Window):
// it keeps the size the window has and the kept split.
func (w *Window) keepGeometry() {
	w.asked = w.Win.Canvas().Size()
	w.geometryKept = true
	if o := w.App.Preferences().Float(prefSplit); o >= 0.05 && o <= 0.95 {
		w.Split.Offset = o
	}
	w.restored = time.Now()
}

// keepSize keeps the window's size, when its content was laid out anew.
// Until the window has the size it asked for (a few layouts at other
// sizes come first as it is shown), or for a few seconds when a screen
// too small refuses it, nothing is kept.
func (w *Window) keepSize(fyne.Size) {
	size := w.Win.Canvas().Size()
	if w.asked == (fyne.Size{}) {
		return // laid out before restoreGeometry
	}
	if !w.geometryKept {
		if size != w.asked && time.Since(w.restored) < 3*time.Second {
			return
		}
		w.geometryKept = true
	}
	if size.Width < 480 || size.Height < 320 {
		return // shrunk to nothing while minimised
	}
	p := w.App.Preferences()
	if float32(p.Float(prefWidth)) != size.Width || float32(p.Float(prefHeight)) != size.Height {
		p.SetFloat(prefWidth, float64(size.Width))
		p.SetFloat(prefHeight, float64(size.Height))
	}
}

// keepSplit keeps where the split divides, when the queue above it was
// laid out anew (a drag of the divider lays it out).
func (w *Window) keepSplit(fyne.Size) {
	if !w.geometryKept {
		// A screen too small refused the size asked for, and no new
		// size has come since: past keepSize's wait, that one is kept.
		w.keepSize(fyne.Size{})
	}
	if !w.geometryKept || w.Split == nil {
		return
	}
	if p := w.App.Preferences(); math.Abs(p.Float(prefSplit)-w.Split.Offset) > 0.001 {
		p.SetFloat(prefSplit, w.Split.Offset)
	}
}

// watchLayout stacks its objects over its whole size, as a Stack does,
// and tells seen each new size it is laid out at.
type watchLayout struct {
	last fyne.Size
	seen func(fyne.Size)
}

func (l *watchLayout) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	for _, o := range objs {
		o.Resize(size)
		o.Move(fyne.NewPos(0, 0))
	}
	if size != l.last {
		l.last = size
		l.seen(size)
	}
}

func (l *watchLayout) MinSize(objs []fyne.CanvasObject) fyne.Size {
	var m fyne.Size
	for _, o := range objs {
		m = m.Max(o.MinSize())
	}
	return m
}

// ThemeMode is the theme the user chose in Settings.
func (w *Window) ThemeMode() ThemeMode {
	switch m := ThemeMode(w.App.Preferences().String(prefTheme)); m {
	case ThemeLight, ThemeDark:
		return m
	}
	return ThemeSystem
}

// SetThemeMode switches the window to light, dark or the desktop's
// choice, and keeps the choice.
func (w *Window) SetThemeMode(m ThemeMode) {
	if m != ThemeLight && m != ThemeDark {
		m = ThemeSystem
	}
	w.App.Preferences().SetString(prefTheme, string(m))
	w.App.Settings().SetTheme(NewThemeMode(m))
}

// applyThemeMode sets the kept theme at start; the desktop's choice
// leaves the app's theme as it was given.
func (w *Window) applyThemeMode() {
	if m := w.ThemeMode(); m != ThemeSystem {
		w.App.Settings().SetTheme(NewThemeMode(m))
	}
}

// themeNames are the theme modes as Settings offers them.
func themeNames() map[ThemeMode]string {
	return map[ThemeMode]string{
		ThemeSystem: lang.L("As the system"),
		ThemeLight:  lang.L("Light"),
		ThemeDark:   lang.L("Dark"),
	}
}

// newThemeSelect is the Settings' theme choice, showing m.
func newThemeSelect(m ThemeMode) *keySelect {
	names := themeNames()
	order := []ThemeMode{ThemeSystem, ThemeLight, ThemeDark}
	var opts []string
	for _, o := range order {
		opts = append(opts, names[o])
	}
	s := newKeySelect(opts, nil, nil)
	s.SetSelected(names[m])
	return s
}

// themeChosen is the mode a theme select shows.
func themeChosen(s *keySelect) ThemeMode {
	for m, n := range themeNames() {
		if n == s.Selected {
			return m
		}
	}
	return ThemeSystem
}

// saveDir is the folder a picker offers: the one last chosen in a
// picker, else the download folder of the settings.
func (w *Window) saveDir() string {
	if d := strings.TrimSpace(w.App.Preferences().String(prefLastDir)); d != "" {
		return d
	}
	return w.Settings.Dir
}

// rememberDir keeps dir as the folder pickers offer next.
func (w *Window) rememberDir(dir string) {
	if dir != "" {
		w.App.Preferences().SetString(prefLastDir, dir)
	}
}

// ShowAbout shows Braid's version, the commit it was built from and its
// licence.
func (w *Window) ShowAbout() {
	name := widget.NewLabelWithStyle("Braid", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	lines := []string{lang.L("Downloads from many mirrors at once, checked piece by piece.")}
	version := w.opts.Version
	if version == "" {
		version = lang.L("unknown")
	}
	lines = append(lines, fmt.Sprintf(lang.L("Version %s"), version))
	if c := w.opts.Commit; c != "" {
		if w.opts.CommitModified {
			c += " " + lang.L("(with changes)")
		}
		lines = append(lines, fmt.Sprintf(lang.L("Built from commit %s"), c))
	}
	licence := w.opts.Licence
	if licence == "" {
		licence = assets.Licence
	}
	lines = append(lines, fmt.Sprintf(lang.L("Licence: %s"), licence))
	text := widget.NewLabel(strings.Join(lines, "\n"))
	text.Wrapping = fyne.TextWrapWord
	others := widget.NewButton(lang.L("Third-party licences…"), w.showThirdPartyLicences)
	d := dialog.NewCustom(lang.L("About Braid"), lang.L("Close"),
		container.NewVBox(name, text, container.NewHBox(others)), w.Win)
	w.keyed(d, d.Hide, d.Hide)
	d.Resize(fyne.NewSize(460, d.MinSize().Height))
	d.Show()
}

// showThirdPartyLicences shows the licences of what braid is built with,
// one line per row: a list draws only the rows in sight, where a label
// would lay out all of the text's 200 KB at once.
func (w *Window) showThirdPartyLicences() {
	lines := strings.Split(strings.ReplaceAll(assets.ThirdPartyLicences, "\r\n", "\n"), "\n")
	list := widget.NewList(func() int { return len(lines) },
		func() fyne.CanvasObject {
			l := widget.NewLabel("")
			l.TextStyle.Monospace = true
			l.Truncation = fyne.TextTruncateEllipsis
			return l
		},
		func(i widget.ListItemID, o fyne.CanvasObject) { o.(*widget.Label).SetText(lines[i]) })
	list.HideSeparators = true
	d := dialog.NewCustom(lang.L("Third-party licences"), lang.L("Close"), list, w.Win)
	w.keyed(d, d.Hide, d.Hide)
	d.Resize(fyne.NewSize(720, 520))
	d.Show()
}
