package ui

import (
	"fmt"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// remoteSection is the settings dialog's Remote control tab: on or off,
// the address, the secret with Copy and New, and where clients reach it.
type remoteSection struct {
	On      *keyCheck
	Address *Entry
	Secret  *Entry
	Copy    *widget.Button
	Renew   *widget.Button
	Status  *widget.Label
	Content fyne.CanvasObject

	renew bool // New was pressed: Save makes a new secret
}

// newRemoteSection builds the Remote control tab showing r; copyText puts
// a text on the clipboard.
func newRemoteSection(r Remote, copyText func(string)) *remoteSection {
	s := &remoteSection{
		On:      newDialogCheck(lang.L("Answer aria2 clients (AriaNg, browser extensions for aria2)"), nil),
		Address: NewEntry(),
		Secret:  NewEntry(),
		Status:  widget.NewLabel(""),
	}
	s.On.SetChecked(r.On)
	s.Address.SetText(r.Address)
	s.Address.SetPlaceHolder("127.0.0.1:6800")
	s.Secret.SetText(r.Secret)
	s.Secret.Disable() // made by Braid; Copy takes it
	s.Copy = widget.NewButtonWithIcon(lang.L("Copy"), theme.ContentCopyIcon(), func() { copyText(s.Secret.Text) })
	s.Renew = widget.NewButtonWithIcon(lang.L("New secret"), theme.ViewRefreshIcon(), func() {
		s.renew = true
		s.Secret.SetText(lang.L("a new secret is made when you save"))
	})
	s.Status.Wrapping = fyne.TextWrapWord
	s.show(r)
	form := widget.NewForm(
		widget.NewFormItem("", s.On),
		widget.NewFormItem(lang.L("Address"), s.Address),
		widget.NewFormItem(lang.L("Secret"), container.NewBorder(nil, nil, nil, container.NewHBox(s.Copy, s.Renew), s.Secret)),
	)
	hint := widget.NewLabel(lang.L("Clients send the secret as token:SECRET. Only this computer can connect at a loopback address. The secret changes each time Braid starts."))
	hint.Wrapping = fyne.TextWrapWord
	s.Content = container.NewVBox(form, s.Status, hint)
	return s
}

// show says where clients reach the remote control, if it is on.
func (s *remoteSection) show(r Remote) {
	if r.On && r.Endpoint != "" {
		s.Status.SetText(fmt.Sprintf(lang.L("On: clients reach Braid at %s"), r.Endpoint))
		return
	}
	s.Status.SetText(lang.L("Off"))
}

// value is the remote control the tab asks for.
func (s *remoteSection) value(old Remote) Remote {
	r := Remote{On: s.On.Checked, Address: s.Address.Text, Secret: old.Secret}
	if r.Address == "" {
		r.Address = "127.0.0.1:6800"
	}
	if s.renew {
		r.Secret = ""
	}
	return r
}
