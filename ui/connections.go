package ui

import (
	"errors"
	"fmt"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// Connection is the downloads of another computer the window can drive:
// a `braid queue run --rpc-listen` or an aria2 at URL (aria2's JSON-RPC).
type Connection struct {
	Name string
	URL  string
	// HasSecret says a secret is kept for it (in the system keyring, or
	// for this session); the secret itself never comes back to the window.
	HasSecret bool
}

// Connections is where the window's downloads run: the saved connections,
// the one chosen and the one this window drives now. A URL of "" is this
// computer.
type Connections struct {
	List   []Connection
	Active string // chosen: the downloads the window opens on
	Shown  string // the downloads this window drives now
}

// ConnectionKeeper keeps the connections and switches the window between
// them. Set Window.Connections to one; nil leaves the settings tab and
// the side panel's list out.
type ConnectionKeeper interface {
	Connections() (Connections, error)
	// SetConnections keeps c's list and choice. secrets holds the secrets
	// typed for some URLs ("" forgets one); the others keep theirs. note
	// is a sentence for the user (a secret kept for this session only),
	// else "".
	SetConnections(c Connections, secrets map[string]string) (note string, err error)
	// Address is an address as typed made the URL the window drives, or
	// a sentence saying why it cannot be one.
	Address(typed string) (string, error)
	// SwitchTo shows the downloads at url ("" for this computer's) in
	// the window, in place of the ones it shows: the same window, its
	// place and size kept, a new Window over them.
	SwitchTo(url string)
}

// connectionNew is the choice of a connection not saved yet.
func connectionNew() string { return lang.L("New connection") }

// connectionsSection is Settings → Downloads run on: this computer or
// another one, which one, its name, address and secret.
type connectionsSection struct {
	Where   *keyRadio
	Pick    *widget.Select
	Name    *Entry
	Address *Entry
	Secret  *Entry
	Forget  *widget.Button
	Status  *widget.Label
	Content fyne.CanvasObject

	form    *widget.Form
	had     Connections
	list    []Connection
	secrets map[string]string // typed, by URL
}

func (s *connectionsSection) thisComputer() string    { return lang.L("This computer") }
func (s *connectionsSection) anotherComputer() string { return lang.L("Another computer") }

// newConnectionsSection builds the tab showing c.
func newConnectionsSection(c Connections) *connectionsSection {
	s := &connectionsSection{had: c, list: append([]Connection(nil), c.List...), secrets: map[string]string{},
		Name: NewEntry(), Address: NewEntry(), Secret: NewEntry(), Status: widget.NewLabel("")}
	s.Where = newKeyRadio([]string{s.thisComputer(), s.anotherComputer()}, func(string) { s.enable() }, nil)
	s.Where.Horizontal = true
	s.Pick = widget.NewSelect(nil, func(string) { s.showPicked() })
	s.Address.SetPlaceHolder("http://nas.local:6800/jsonrpc")
	s.Name.SetPlaceHolder(lang.L("its host and port"))
	s.Secret.Password = true
	s.Forget = widget.NewButtonWithIcon(lang.L("Forget"), theme.DeleteIcon(), s.forget)
	s.Status.Wrapping = fyne.TextWrapWord
	s.fillPick(c.Active)
	if c.Active == "" {
		s.Where.SetSelected(s.thisComputer())
	} else {
		s.Where.SetSelected(s.anotherComputer())
	}
	s.Status.SetText(connectionNow(c))
	s.form = widget.NewForm(
		widget.NewFormItem(lang.L("Downloads run on"), s.Where),
		widget.NewFormItem(lang.L("Connection"), container.NewBorder(nil, nil, nil, s.Forget, s.Pick)),
		widget.NewFormItem(lang.L("Name"), s.Name),
		widget.NewFormItem(lang.L("Address"), s.Address),
		widget.NewFormItem(lang.L("Secret"), s.Secret),
	)
	words := lang.L("Another computer is a braid queue run --rpc-listen or an aria2 with --enable-rpc. The secret is kept in the system keyring, never in Braid's files. Saving a change shows the chosen downloads in this window.")
	if c.Shown == "" {
		words += " " + lang.L("Downloads running on this computer stop and wait in its queue.")
	}
	hint := widget.NewLabel(words)
	hint.Wrapping = fyne.TextWrapWord
	s.Content = container.NewVBox(s.form, s.Status, hint)
	s.enable()
	return s
}

// connectionNow says which downloads the window drives now.
func connectionNow(c Connections) string {
	if c.Shown == "" {
		return lang.L("Now: this computer's downloads.")
	}
	return fmt.Sprintf(lang.L("Now: the downloads at %s."), c.Shown)
}

// fillPick lists the saved connections and New connection, choosing url's.
func (s *connectionsSection) fillPick(url string) {
	var opts []string
	chosen := connectionNew()
	for _, c := range s.list {
		opts = append(opts, connectionLabel(c))
		if c.URL == url {
			chosen = connectionLabel(c)
		}
	}
	s.Pick.Options = append(opts, connectionNew())
	s.Pick.SetSelected(chosen)
	s.Pick.Refresh()
}

// connectionLabel is how a connection is listed: its name, and its
// address when the name is not it.
func connectionLabel(c Connection) string {
	if c.Name == "" || strings.Contains(c.URL, c.Name) {
		return c.URL
	}
	return c.Name + " — " + c.URL
}

// picked is the saved connection chosen in Pick, and whether one is.
func (s *connectionsSection) picked() (Connection, bool) {
	for _, c := range s.list {
		if connectionLabel(c) == s.Pick.Selected {
			return c, true
		}
	}
	return Connection{}, false
}

func (s *connectionsSection) showPicked() {
	c, ok := s.picked()
	s.Name.SetText(c.Name)
	s.Address.SetText(c.URL)
	s.Secret.SetText("")
	switch {
	case ok && c.HasSecret:
		s.Secret.SetPlaceHolder(lang.L("kept; type a new one to change it"))
	case ok:
		s.Secret.SetPlaceHolder(lang.L("none kept; empty for a daemon without one"))
	default:
		s.Secret.SetPlaceHolder(lang.L("empty for a daemon without one"))
	}
	s.enable()
}

// forget takes the chosen connection off the list and its secret out of
// the keyring, on Save.
func (s *connectionsSection) forget() {
	c, ok := s.picked()
	if !ok {
		return
	}
	for i := range s.list {
		if s.list[i].URL == c.URL {
			s.list = append(s.list[:i], s.list[i+1:]...)
			break
		}
	}
	s.fillPick("")
}

// enable greys out the connection's fields while this computer is chosen.
func (s *connectionsSection) enable() {
	on := s.Where.Selected == s.anotherComputer()
	for _, e := range []*Entry{s.Name, s.Address, s.Secret} {
		if on {
			e.Enable()
		} else {
			e.Disable()
		}
	}
	_, saved := s.picked()
	if on {
		s.Pick.Enable()
	} else {
		s.Pick.Disable()
	}
	if on && saved {
		s.Forget.Enable()
	} else {
		s.Forget.Disable()
	}
	if s.form != nil {
		s.form.Refresh() // its labels grey with their fields
	}
}

// value is what the tab asks for: the list with the connection typed
// (added, or the picked one changed), the choice, and the secret typed.
// normalize turns an address into the URL kept, or says why it cannot.
func (s *connectionsSection) value(normalize func(string) (string, error)) (Connections, map[string]string, error) {
	c := Connections{List: append([]Connection(nil), s.list...), Shown: s.had.Shown}
	secrets := map[string]string{}
	if s.Where.Selected != s.anotherComputer() {
		return c, secrets, nil
	}
	addr := strings.TrimSpace(s.Address.Text)
	if addr == "" {
		return c, nil, errors.New(lang.L("downloads run on: give the address of the other computer's downloads"))
	}
	link, err := normalize(addr)
	if err != nil {
		return c, nil, err
	}
	one := Connection{Name: strings.TrimSpace(s.Name.Text), URL: link}
	if old, ok := s.picked(); ok {
		for i := range c.List {
			if c.List[i].URL == old.URL {
				one.HasSecret = old.HasSecret && old.URL == link
				c.List[i] = one
			}
		}
	} else {
		c.List = append(c.List, one)
	}
	// The same address saved twice is one connection: the last typed.
	for i := 0; i < len(c.List); i++ {
		for j := i + 1; j < len(c.List); j++ {
			if c.List[j].URL == c.List[i].URL {
				c.List[i] = c.List[j]
				c.List = append(c.List[:j], c.List[j+1:]...)
				j--
			}
		}
	}
	if s.Secret.Text != "" {
		secrets[link] = s.Secret.Text
	}
	c.Active = link
	return c, secrets, nil
}

// changed reports whether c differs from what the tab showed, or secrets
// holds a secret to keep.
func (s *connectionsSection) changed(c Connections, secrets map[string]string) bool {
	if c.Active != s.had.Active || len(c.List) != len(s.had.List) || len(secrets) > 0 {
		return true
	}
	for i := range c.List {
		if c.List[i].Name != s.had.List[i].Name || c.List[i].URL != s.had.List[i].URL {
			return true
		}
	}
	return false
}

// connectionsTab is Settings → Downloads run on, nil without a keeper or
// when the connections cannot be read (said in the tab's place).
func (w *Window) connectionsTab(f *SettingsForm) *container.TabItem {
	if w.Connections == nil {
		return nil
	}
	c, err := w.Connections.Connections()
	if err != nil {
		w.showError(err)
		return nil
	}
	f.Connections = newConnectionsSection(c)
	return container.NewTabItemWithIcon(lang.L("Downloads run on"), theme.ComputerIcon(), f.Connections.Content)
}

// saveConnections keeps what the tab asks for and, when the chosen
// downloads are not the ones shown, shows them in the window.
func (w *Window) saveConnections(s *connectionsSection) {
	if s == nil {
		return
	}
	c, secrets, err := s.value(w.Connections.Address)
	if err != nil {
		w.showError(err)
		return
	}
	if !s.changed(c, secrets) {
		return
	}
	keeper := w.Connections
	w.command(lang.L("Downloads run on"), func() error {
		note, err := keeper.SetConnections(c, secrets)
		if err != nil {
			return err
		}
		w.do(func() {
			if c.Active != c.Shown {
				keeper.SwitchTo(c.Active) // says the note in the Window it makes
				return
			}
			if note != "" {
				dialog.ShowInformation(lang.L("Downloads run on"), note, w.Win)
			}
		})
		return nil
	})
}

// ShowConnections lists the saved connections in the side panel under
// Computers (the heading Settings → Downloads run on is too wide for
// the panel), the one shown marked; a click on another offers to
// switch to it. Call it once Connections is set; with no connection
// saved the panel lists none.
func (w *Window) ShowConnections() {
	if w.Connections == nil {
		return
	}
	c, err := w.Connections.Connections()
	if err != nil {
		w.showProblem(err)
		return
	}
	w.Side.conns, w.Side.shown = c.List, c.Shown
	w.Side.onConnection = w.askSwitch
	w.showStateCounts()
}

// askSwitch shows the downloads at url ("" for this computer's) in the
// window instead of the ones it shows. Leaving this computer's downloads
// stops them, so that is asked first.
func (w *Window) askSwitch(url string) {
	if w.Side.shown != "" {
		w.switchConnection(url)
		return
	}
	where := lang.L("this computer's downloads")
	if url != "" {
		where = fmt.Sprintf(lang.L("the downloads at %s"), url)
	}
	msg := fmt.Sprintf(lang.L("This window shows %s instead."), where) + " " +
		lang.L("Downloads running on this computer stop and wait in its queue.")
	d := dialog.NewConfirm(lang.L("Downloads run on"), msg, func(ok bool) {
		if ok {
			w.switchConnection(url)
		}
	}, w.Win)
	w.keyed(d, d.Confirm, d.Hide)
	d.Show()
}

// switchConnection keeps url as the downloads chosen and switches to them.
func (w *Window) switchConnection(url string) {
	keeper := w.Connections
	w.command(lang.L("Downloads run on"), func() error {
		c, err := keeper.Connections()
		if err != nil {
			return err
		}
		c.Active = url
		if _, err := keeper.SetConnections(c, nil); err != nil {
			return err
		}
		w.do(func() { keeper.SwitchTo(url) })
		return nil
	})
}

// SayConnection shows text, a sentence about where the downloads run (a
// switch that failed, a secret kept for this session only), in a dialog.
func (w *Window) SayConnection(text string) {
	if text == "" {
		return
	}
	d := dialog.NewInformation(lang.L("Downloads run on"), text, w.Win)
	w.keyed(d, d.Hide, d.Hide)
	d.Show()
}

// AskConnectionSecret asks for the secret of the downloads at url again:
// without a keyring it lasted only until Braid closed. got has the secret
// typed; Cancel leaves the window as it is, saying the daemon refused
// it.
func (w *Window) AskConnectionSecret(url string, got func(secret string)) {
	e := NewEntry()
	e.Password = true
	msg := widget.NewLabel(fmt.Sprintf(lang.L("This system has no keyring (Secret Service), so the secret of the downloads at %s was kept only until Braid closed. Give it again to see them."), url))
	msg.Wrapping = fyne.TextWrapWord
	content := container.NewVBox(msg, widget.NewForm(widget.NewFormItem(lang.L("Secret"), e)))
	d := dialog.NewCustomConfirm(lang.L("Downloads run on"), lang.L("Connect"), lang.L("Cancel"), content, func(ok bool) {
		if ok && e.Text != "" {
			got(e.Text)
		}
	}, w.Win)
	e.OnSubmitted = func(string) { d.Confirm() }
	e.OnEscape = d.Hide
	w.keyed(d, d.Confirm, d.Hide)
	d.Resize(fyne.NewSize(560, d.MinSize().Height))
	d.Show()
	w.Win.Canvas().Focus(e)
}
