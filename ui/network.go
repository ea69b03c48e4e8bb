package ui

import (
	"fmt"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"braid/engine/netconf"
)

// Networker is a Backend whose connections the user can send through a
// proxy: the settings dialog shows a Network section for it.
type Networker interface {
	// Proxy is the proxy setting as it stands.
	Proxy() (ProxySetting, error)
	// SetProxy stores p and applies it to the connections the downloads
	// open from now on. The proxy's password goes to the system's keyring
	// when p.Remember (else it lasts until Braid closes), never to the
	// queue's database; an empty Password keeps the one kept, unless
	// ForgetPassword. note is a sentence to show (no keyring), else "".
	SetProxy(p ProxySetting) (note string, err error)
}

// ProxyMode is where the downloads' proxy comes from.
type ProxyMode int

// The proxy modes the Network section offers.
const (
	// ProxySystem takes the system's setting: the http_proxy,
	// https_proxy, all_proxy and no_proxy variables as curl reads them,
	// else on Windows and macOS the system's proxy settings.
	ProxySystem ProxyMode = iota
	ProxyNone             // every connection direct
	ProxyManual           // through URL, except to the hosts of NoProxy
)

// ProxySetting is the Network section's setting.
type ProxySetting struct {
	Mode ProxyMode
	// URL is the manual proxy (http://, https://, socks5://, socks5h://),
	// with a user name but never a password; NoProxy the hosts reached
	// directly (names, addresses, ranges, separated by commas).
	URL, NoProxy string
	// Password is the proxy's password as typed; "" leaves the one kept.
	// HasPassword says one is kept (it is never shown).
	Password       string
	HasPassword    bool
	ForgetPassword bool
	// Remember keeps a typed password in the system's keyring;
	// CanRemember says the system has one.
	Remember, CanRemember bool
}

// networkSection is the settings dialog's Network part.
type networkSection struct {
	Mode     *keyRadio
	URL      *Entry
	NoProxy  *Entry
	Password *Entry
	Remember *keyCheck
	Form     *widget.Form
	Content  fyne.CanvasObject
	was      ProxySetting
}

// modeNames are the radio group's choices, in ProxyMode order.
func modeNames() []string {
	return []string{lang.L("System"), lang.L("None (direct)"), lang.L("Manual")}
}

// newNetworkSection builds the Network section showing p.
func newNetworkSection(p ProxySetting) *networkSection {
	LoadTranslations()
	s := &networkSection{URL: NewEntry(), NoProxy: NewEntry(), Password: NewEntry(), was: p}
	names := modeNames()
	s.Mode = newKeyRadio(names, nil, nil)
	s.Mode.Horizontal = true
	s.URL.SetText(p.URL)
	s.URL.SetPlaceHolder(lang.L("http://proxy.example:3128, socks5h://proxy.example:1080"))
	s.URL.Validator = func(t string) error {
		if strings.TrimSpace(t) == "" || s.Mode.Selected != names[ProxyManual] {
			return nil
		}
		return checkProxyURL(t)
	}
	s.NoProxy.SetText(p.NoProxy)
	s.NoProxy.SetPlaceHolder(lang.L("localhost, .example.org, 10.0.0.0/8"))
	s.Password.Password = true
	if p.HasPassword {
		s.Password.SetPlaceHolder(lang.L("kept; type to change"))
	}
	s.Remember = newDialogCheck(lang.L("Remember the password (in the system's keyring)"), nil)
	s.Remember.SetChecked(p.CanRemember)
	if !p.CanRemember {
		s.Remember.Disable()
	}
	item := func(label string, o fyne.CanvasObject, hint string) *widget.FormItem {
		it := widget.NewFormItem(label, o)
		it.HintText = hint
		return it
	}
	s.Form = widget.NewForm(
		item(lang.L("Proxy"), s.Mode, lang.L("System: http_proxy, https_proxy, all_proxy, no_proxy as curl reads them, else the Windows or macOS settings")),
		item(lang.L("Proxy URL"), s.URL, lang.L("http://, https://, socks5:// or socks5h:// (names resolved by the proxy), with user@ for a login")),
		item(lang.L("Proxy password"), s.Password, ""),
		item("", s.Remember, ""),
		item(lang.L("Not through the proxy"), s.NoProxy, lang.L("hosts reached directly: names (with their subdomains), addresses, ranges")),
	)
	if !p.CanRemember {
		s.Form.Append("", widget.NewLabel(lang.L("This system has no keyring (Secret Service): the password is kept only until Braid closes.")))
	}
	s.Mode.OnChanged = func(string) { s.enable() }
	s.Mode.SetSelected(names[min(int(p.Mode), len(names)-1)])
	s.enable()
	s.Content = container.NewVScroll(s.Form)
	return s
}

// enable lets the manual fields be edited in manual mode only.
func (s *networkSection) enable() {
	manual := s.Mode.Selected == modeNames()[ProxyManual]
	for _, e := range []*Entry{s.URL, s.NoProxy, s.Password} {
		if manual {
			e.Enable()
		} else {
			e.Disable()
		}
	}
	if s.Form != nil {
		s.Form.Refresh() // the labels of the fields follow
	}
}

// value reads the section, and whether it differs from what it showed.
func (s *networkSection) value() (ProxySetting, bool, error) {
	p := ProxySetting{CanRemember: s.was.CanRemember, HasPassword: s.was.HasPassword}
	for i, n := range modeNames() {
		if s.Mode.Selected == n {
			p.Mode = ProxyMode(i)
		}
	}
	p.URL = strings.TrimSpace(s.URL.Text)
	p.NoProxy = strings.TrimSpace(s.NoProxy.Text)
	p.Password = s.Password.Text
	p.Remember = s.Remember.Checked && p.CanRemember
	if p.Mode == ProxyManual {
		if p.URL == "" {
			return p, false, fmt.Errorf("%s", lang.L("proxy: a manual proxy needs its URL"))
		}
		if err := checkProxyURL(p.URL); err != nil {
			return p, false, err
		}
	}
	changed := p.Mode != s.was.Mode || p.URL != s.was.URL || p.NoProxy != s.was.NoProxy || p.Password != ""
	return p, changed, nil
}

// checkProxyURL says whether Braid can use a proxy URL, in a sentence
// that never holds its password.
func checkProxyURL(raw string) error {
	if _, err := netconf.NewNetwork(netconf.Proxy{Mode: netconf.ProxyManual, URL: raw}); err != nil {
		return fmt.Errorf(lang.L("proxy: %w"), err)
	}
	return nil
}

// saveNetwork stores the section's setting when it changed.
func (w *Window) saveNetwork(nw Networker, s *networkSection) {
	p, changed, err := s.value()
	if err != nil {
		w.showError(err)
		return
	}
	s.Password.SetText("")
	if !changed {
		return
	}
	w.command(lang.L("Network"), func() error {
		note, err := nw.SetProxy(p)
		if err == nil && note != "" {
			w.do(func() { w.showNote(note) })
		}
		return err
	})
}

// networkTab is the settings dialog's Network tab, f.Network its parts;
// nil when the backend has no proxy setting or cannot read it.
func (w *Window) networkTab(f *SettingsForm) *container.TabItem {
	nw, ok := w.Backend.(Networker)
	if !ok {
		return nil
	}
	p, err := nw.Proxy()
	if err != nil {
		w.showError(err)
		return nil
	}
	f.Network = newNetworkSection(p)
	return container.NewTabItemWithIcon(lang.L("Network"), theme.LoginIcon(), f.Network.Content)
}

// saveNetworkOf stores the Network tab of f, when it was shown.
func (w *Window) saveNetworkOf(f *SettingsForm) {
	if nw, ok := w.Backend.(Networker); ok && f.Network != nil {
		w.saveNetwork(nw, f.Network)
	}
}

// keyedNetwork makes Enter in the Network tab's fields save the settings
// (ok) and Escape cancel, as in the other tabs.
func (f *SettingsForm) keyedNetwork(ok, cancel func()) {
	if f.Network == nil {
		return
	}
	for _, e := range []*Entry{f.Network.URL, f.Network.NoProxy, f.Network.Password} {
		e.OnSubmitted = func(string) { ok() }
		e.OnEscape = cancel
	}
}
