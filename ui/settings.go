package ui

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// SettingsForm is the settings screen's parts, exported for tests. It runs
// on the UI goroutine.
type SettingsForm struct {
	Dir           *Entry
	Browse        *widget.Button
	Languages     *Entry
	OS            *Entry
	Countries     *Entry
	MaxJobs       *Entry
	MaxConns      *Entry
	MaxPerMirror  *Entry
	SpeedLimit    *Entry
	AltSpeedLimit *Entry
	StartOnLaunch *keyCheck
	// RequireSignature fails downloads no key of the keyring signed.
	RequireSignature *keyCheck
	Torrent          *torrentForm // BitTorrent (torrentsettings.go)
	// Theme is light, dark or as the desktop prefers: the window's own
	// preference, not one of the Backend's settings.
	Theme *keySelect
	// Keys is the keyring's section; nil when the backend keeps no keys.
	Keys *KeysSection
	// Remote is the remote control's section; nil when the backend has
	// none.
	Remote *remoteSection
	// Network is the proxy section (network.go); nil when the backend
	// has none.
	Network *networkSection
	Form    *widget.Form
	Content fyne.CanvasObject

	// Categories is Settings → Categories (categories.go); nil when the
	// backend sorts no downloads.
	Categories *CategoriesSection
	// Connections is Settings → Downloads run on (connections.go); nil
	// without a ConnectionKeeper.
	Connections *connectionsSection
}

// NewSettingsForm builds the settings screen showing s. parent is the
// window the folder chooser opens over.
func NewSettingsForm(s Settings, parent fyne.Window) *SettingsForm {
	LoadTranslations()
	f := &SettingsForm{
		Dir:           NewEntry(),
		Languages:     NewEntry(),
		OS:            NewEntry(),
		Countries:     NewEntry(),
		MaxJobs:       NewEntry(),
		MaxConns:      NewEntry(),
		MaxPerMirror:  NewEntry(),
		SpeedLimit:    NewEntry(),
		AltSpeedLimit: NewEntry(),
	}
	f.Dir.SetText(s.Dir)
	f.Browse = widget.NewButtonWithIcon("", theme.FolderOpenIcon(), func() {
		chooseFolder(parent, lang.L("Download folder"), f.Dir.Text, f.Dir.SetText)
	})
	f.Languages.SetText(strings.Join(s.Languages, ", "))
	f.Languages.SetPlaceHolder(lang.L("any language"))
	f.OS.SetText(strings.Join(s.OS, ", "))
	f.OS.SetPlaceHolder(lang.L("any system"))
	f.Countries.SetText(strings.Join(s.Countries, ", "))
	f.Countries.SetPlaceHolder(lang.L("anywhere"))
	f.MaxJobs.SetText(intText(s.MaxJobs))
	f.MaxJobs.SetPlaceHolder(lang.L("default (3)"))
	f.MaxJobs.Validator = validInt
	f.MaxConns.SetText(intText(s.MaxConns))
	f.MaxConns.SetPlaceHolder(lang.L("default (16)"))
	f.MaxConns.Validator = validInt
	f.MaxPerMirror.SetText(intText(s.MaxConnsPerMirror))
	f.MaxPerMirror.SetPlaceHolder(lang.L("default (1, as RFC 6249 asks)"))
	f.MaxPerMirror.Validator = validInt
	f.SpeedLimit.SetText(rateText(s.SpeedLimit))
	f.SpeedLimit.SetPlaceHolder(lang.L("no limit"))
	f.SpeedLimit.Validator = func(t string) error { _, err := ParseRate(t); return err }
	f.AltSpeedLimit.SetText(rateText(s.AltSpeedLimit))
	f.AltSpeedLimit.SetPlaceHolder(lang.L("no limit"))
	f.AltSpeedLimit.Validator = func(t string) error { _, err := ParseRate(t); return err }
	f.StartOnLaunch = newDialogCheck(lang.L("Start queued downloads when Braid opens"), nil)
	f.StartOnLaunch.SetChecked(s.StartOnLaunch)
	f.RequireSignature = newDialogCheck(lang.L("Require a signature by a key I trust"), nil)
	f.RequireSignature.SetChecked(s.RequireSignature)

	item := func(label string, o fyne.CanvasObject, hint string) *widget.FormItem {
		it := widget.NewFormItem(label, o)
		it.HintText = hint
		return it
	}
	f.Form = widget.NewForm(
		item(lang.L("Download folder"), container.NewBorder(nil, nil, nil, f.Browse, f.Dir), ""),
		item(lang.L("Languages"), f.Languages, lang.L("BCP 47 tags, most wanted first: en-GB, de")),
		item(lang.L("Systems"), f.OS, lang.L("as metalinks name them: Linux-x64, Windows-x64, linux/arm64")),
		item(lang.L("Mirror countries"), f.Countries, lang.L("ISO codes, nearest first: DE, NL; mirrors there are tried first")),
		item(lang.L("Downloads at once"), f.MaxJobs, ""),
		item(lang.L("Connections"), f.MaxConns, lang.L("in total, across all downloads")),
		item(lang.L("Per mirror"), f.MaxPerMirror, ""),
		item(lang.L("Speed limit"), f.SpeedLimit, lang.L("for all downloads: 2 MiB/s, 500 KiB/s; empty for none")),
		item(lang.L("Alternative limit"), f.AltSpeedLimit, lang.L("the slower speed the Slow button (Ctrl+L) switches to")),
		item("", f.StartOnLaunch, ""),
		item("", f.RequireSignature, lang.L("a download no key below signed fails and stays NAME.part; a bad signature fails always")),
	)
	f.Theme = newThemeSelect(ThemeSystem)
	f.Form.Append(lang.L("Theme"), f.Theme)
	f.Torrent = newTorrentForm(s.Torrent, f.Form)
	f.Content = f.Form
	return f
}

// Value reads the form; it fails, naming the field, when a number or rate
// does not parse.
func (f *SettingsForm) Value() (Settings, error) {
	var s Settings
	var errs []error
	s.Dir = strings.TrimSpace(f.Dir.Text)
	if s.Dir == "" {
		errs = append(errs, errors.New(lang.L("download folder: choose a folder")))
	}
	s.Languages = splitList(f.Languages.Text)
	s.OS = splitList(f.OS.Text)
	s.Countries = splitList(f.Countries.Text)
	num := func(name, text string) int {
		n, err := parseCount(text)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", name, err))
		}
		return n
	}
	s.MaxJobs = num(lang.L("downloads at once"), f.MaxJobs.Text)
	s.MaxConns = num(lang.L("connections"), f.MaxConns.Text)
	s.MaxConnsPerMirror = num(lang.L("per mirror"), f.MaxPerMirror.Text)
	var err error
	if s.SpeedLimit, err = ParseRate(f.SpeedLimit.Text); err != nil {
		errs = append(errs, fmt.Errorf(lang.L("speed limit: %w"), err))
	}
	if s.AltSpeedLimit, err = ParseRate(f.AltSpeedLimit.Text); err != nil {
		errs = append(errs, fmt.Errorf(lang.L("alternative limit: %w"), err))
	}
	s.StartOnLaunch = f.StartOnLaunch.Checked
	s.RequireSignature = f.RequireSignature.Checked
	s.Torrent, err = f.Torrent.value()
	errs = append(errs, err)
	return s, errors.Join(errs...)
}

// ShowSettings opens the settings dialog; Save stores them in the queue
// database.
func (w *Window) ShowSettings() {
	f := NewSettingsForm(w.Settings, w.Win)
	f.Theme.SetSelected(themeNames()[w.ThemeMode()])
	tabs := []*container.TabItem{container.NewTabItemWithIcon(lang.L("General"), theme.SettingsIcon(), container.NewVScroll(f.Form))}
	if kr, ok := w.Backend.(Keyring); ok {
		f.Keys = w.newKeysSection(kr)
		tabs = append(tabs, container.NewTabItemWithIcon(lang.L("Signing keys"), theme.AccountIcon(), f.Keys.Content))
	}
	rc, remote := w.Backend.(RemoteControl)
	if remote {
		f.Remote = newRemoteSection(rc.Remote(), func(text string) {
			if c := w.App.Clipboard(); c != nil && text != "" {
				c.SetContent(text)
			}
		})
		tabs = append(tabs, container.NewTabItemWithIcon(lang.L("Remote control"), theme.ComputerIcon(), f.Remote.Content))
	}
	if tab := w.networkTab(f); tab != nil {
		tabs = append(tabs, tab)
	}
	if ck, ok := w.Backend.(CategoryKeeper); ok {
		f.Categories = w.newCategoriesSection(ck, func() string { return strings.TrimSpace(f.Dir.Text) })
		tabs = append(tabs, container.NewTabItemWithIcon(lang.L("Categories"), theme.FolderIcon(), f.Categories.Content))
	}
	if tab := w.connectionsTab(f); tab != nil {
		tabs = append(tabs, tab)
	}
	if len(tabs) > 1 {
		// The tabs are listed down the left: across the top, six of them
		// (longer in German) left the last behind the bar's "…" menu.
		at := container.NewAppTabs(tabs...)
		at.SetTabLocation(container.TabLocationLeading)
		f.Content = at
	}
	w.SettingsForm = f
	d := dialog.NewCustomConfirm(lang.L("Settings"), lang.L("Save"), lang.L("Cancel"), f.Content, func(ok bool) {
		if !ok {
			return
		}
		s, err := f.Value()
		if err != nil {
			w.showError(err)
			return
		}
		if s.Dir != w.Settings.Dir {
			// A new download folder is where pickers save from now on.
			w.App.Preferences().RemoveValue(prefLastDir)
		}
		w.Settings = s
		if m := themeChosen(f.Theme); m != w.ThemeMode() {
			w.SetThemeMode(m)
		}
		w.command(lang.L("Save settings"), func() error { return w.Backend.SetSettings(s) })
		if f.Categories != nil && f.Categories.Changed {
			w.saveCategories(f.Categories)
		}
		w.saveNetworkOf(f)
		w.saveConnections(f.Connections)
		if remote {
			now := rc.Remote()
			if want := f.Remote.value(now); want.On != now.On || want.Address != now.Address || want.Secret != now.Secret {
				w.command(lang.L("Remote control"), func() error {
					_, err := rc.SetRemote(want)
					return err
				})
			}
		}
	}, w.Win)
	for _, e := range []*Entry{f.Dir, f.Languages, f.OS, f.Countries, f.MaxJobs, f.MaxConns, f.MaxPerMirror, f.SpeedLimit, f.AltSpeedLimit} {
		e.OnSubmitted = func(string) { d.Confirm() }
		e.OnEscape = d.Hide
	}
	if f.Connections != nil {
		for _, e := range []*Entry{f.Connections.Name, f.Connections.Address, f.Connections.Secret} {
			e.OnSubmitted = func(string) { d.Confirm() }
			e.OnEscape = d.Hide
		}
	}
	f.Torrent.keyed(d.Confirm, d.Hide)
	f.keyedNetwork(d.Confirm, d.Hide)
	w.keyed(d, d.Confirm, d.Hide)
	width, height := float32(680), d.MinSize().Height
	if len(tabs) > 1 {
		height = min(720, w.Win.Canvas().Size().Height-40)
		width = max(680, min(880, w.Win.Canvas().Size().Width-40)) // the tabs' column beside the fields
	}
	d.Resize(fyne.NewSize(width, height))
	d.Show()
}

func intText(n int) string {
	if n <= 0 {
		return ""
	}
	return strconv.Itoa(n)
}

func parseCount(s string) (int, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || n > 1000 {
		return 0, fmt.Errorf(lang.L("%q is not a number from 0 to 1000"), s)
	}
	return n, nil
}

func validInt(s string) error { _, err := parseCount(s); return err }

// ParseRate reads a speed as people write it: "2 MiB/s", "500K", "1.5MiB",
// "800000" (bytes per second). K, M and G are binary (1024), as the window
// shows sizes. Empty, "0" and "none" mean no limit (0).
func ParseRate(s string) (int64, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	// A decimal comma, as German writes "1,5 MiB/s" (and as bytesText
	// writes it back into the field).
	t = strings.Replace(t, ",", ".", 1)
	t = strings.TrimSuffix(strings.TrimSuffix(t, "/s"), "ps")
	t = strings.TrimSpace(t)
	switch t {
	case "", "0", "none", "unlimited", "no limit":
		return 0, nil
	}
	mult := int64(1)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{
		{"gib", 1 << 30}, {"gb", 1 << 30}, {"g", 1 << 30},
		{"mib", 1 << 20}, {"mb", 1 << 20}, {"m", 1 << 20},
		{"kib", 1 << 10}, {"kb", 1 << 10}, {"k", 1 << 10},
		{"b", 1},
	} {
		if strings.HasSuffix(t, u.suffix) {
			t, mult = strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), u.mult
			break
		}
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || math.IsNaN(v) || v < 0 || v*float64(mult) > 1<<50 {
		return 0, fmt.Errorf(lang.L("%q is not a speed such as 2 MiB/s"), s)
	}
	return int64(v * float64(mult)), nil
}

func rateText(bps int64) string {
	if bps <= 0 {
		return ""
	}
	return bytesText(bps) + "/s"
}
