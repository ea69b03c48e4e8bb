package ui

import (
	"slices"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// keyRadio is a group of radio buttons, one choice of Options, that
// hands Enter and Escape to its dialog while one of its buttons has the
// focus. Fyne's RadioGroup takes the focus when clicked and then eats
// both keys, so a dialog stopped answering them once a radio button was
// clicked. Space chooses the focused button, as in Fyne's.
type keyRadio struct {
	widget.BaseWidget
	Options   []string
	Selected  string
	OnChanged func(string)
	// Horizontal lays the buttons out in a row.
	Horizontal bool
	items      []*keyRadioItem
	box        *fyne.Container
	onKey      func(fyne.KeyName) bool
}

// newKeyRadio is a keyRadio over options; onKey hears the keys its
// buttons do not use, or without one the dialog it is in (passKey).
func newKeyRadio(options []string, changed func(string), onKey func(fyne.KeyName) bool) *keyRadio {
	r := &keyRadio{Options: options, OnChanged: changed, onKey: onKey, box: container.NewVBox()}
	for _, o := range options {
		it := &keyRadioItem{label: widget.NewLabel(o), icon: widget.NewIcon(theme.RadioButtonIcon()), group: r, option: o,
			back: canvas.NewRectangle(theme.Color(theme.ColorNameBackground))}
		it.back.FillColor = nil
		it.ExtendBaseWidget(it)
		r.items = append(r.items, it)
		r.box.Add(it)
	}
	r.ExtendBaseWidget(r)
	return r
}

// SetSelected chooses option s and tells OnChanged when it changed.
func (r *keyRadio) SetSelected(s string) {
	if s == r.Selected {
		return
	}
	r.Selected = s
	for _, it := range r.items {
		it.show()
	}
	if r.OnChanged != nil {
		r.OnChanged(s)
	}
}

// CreateRenderer is Fyne's hook; see fyne.Widget.
func (r *keyRadio) CreateRenderer() fyne.WidgetRenderer {
	if r.Horizontal {
		r.box.Layout = layout.NewHBoxLayout()
	}
	return widget.NewSimpleRenderer(r.box)
}

// keyRadioItem is one button of a keyRadio.
type keyRadioItem struct {
	widget.BaseWidget
	group            *keyRadio
	option           string
	icon             *widget.Icon
	label            *widget.Label
	back             *canvas.Rectangle
	focused, hovered bool
}

func (i *keyRadioItem) show() {
	if i.group.Selected == i.option {
		i.icon.SetResource(theme.NewPrimaryThemedResource(theme.RadioButtonCheckedIcon()))
	} else {
		i.icon.SetResource(theme.RadioButtonIcon())
	}
	switch {
	case i.focused:
		i.back.FillColor = theme.Color(theme.ColorNameFocus)
	case i.hovered:
		i.back.FillColor = theme.Color(theme.ColorNameHover)
	default:
		i.back.FillColor = nil
	}
	i.back.Refresh()
}

// CreateRenderer is Fyne's hook; see fyne.Widget.
func (i *keyRadioItem) CreateRenderer() fyne.WidgetRenderer {
	i.show()
	return widget.NewSimpleRenderer(container.NewStack(i.back, container.NewBorder(nil, nil, i.icon, nil, i.label)))
}

// Tapped is Fyne's hook; see fyne.Tappable. A click chooses the button
// and gives it the focus, as Fyne's radio buttons do.
func (i *keyRadioItem) Tapped(*fyne.PointEvent) {
	if c := fyne.CurrentApp().Driver().CanvasForObject(i); c != nil && !i.focused {
		c.Focus(i)
	}
	i.group.SetSelected(i.option)
}

// FocusGained is Fyne's hook; see fyne.Focusable.
func (i *keyRadioItem) FocusGained() { i.focused = true; i.show() }

// FocusLost is Fyne's hook; see fyne.Focusable.
func (i *keyRadioItem) FocusLost() { i.focused = false; i.show() }

// TypedRune is Fyne's hook; see fyne.Focusable.
func (i *keyRadioItem) TypedRune(r rune) {
	if r == ' ' {
		i.group.SetSelected(i.option)
	}
}

// TypedKey is Fyne's hook; see fyne.Focusable.
func (i *keyRadioItem) TypedKey(k *fyne.KeyEvent) {
	passKey(i, i.group.onKey, k.Name)
}

// MouseIn is Fyne's hook; see desktop.Hoverable.
func (i *keyRadioItem) MouseIn(*desktop.MouseEvent) { i.hovered = true; i.show() }

// MouseMoved is Fyne's hook; see desktop.Hoverable.
func (i *keyRadioItem) MouseMoved(*desktop.MouseEvent) {}

// MouseOut is Fyne's hook; see desktop.Hoverable.
func (i *keyRadioItem) MouseOut() { i.hovered = false; i.show() }

// keySelect is a Select that hands Enter and Escape to its dialog while
// it has the focus (a click on it gives it the focus, and Fyne's Select
// eats both keys then).
type keySelect struct {
	widget.Select
	onKey func(fyne.KeyName) bool
}

func newKeySelect(options []string, changed func(string), onKey func(fyne.KeyName) bool) *keySelect {
	s := &keySelect{onKey: onKey}
	s.Options, s.OnChanged = options, changed
	s.ExtendBaseWidget(s)
	return s
}

// TypedKey is Fyne's hook; see fyne.Focusable.
func (s *keySelect) TypedKey(k *fyne.KeyEvent) {
	if k.Name != fyne.KeySpace && passKey(s, s.onKey, k.Name) {
		return
	}
	s.Select.TypedKey(k)
}

// keyCheckGroup is a row or column of check boxes, each an option, that
// hand Enter and Escape to their dialog (Fyne's CheckGroup's boxes eat
// them once clicked). Selected are the options ticked, in Options' order.
type keyCheckGroup struct {
	widget.BaseWidget
	Options    []string
	Selected   []string
	Horizontal bool
	checks     []*keyCheck
}

func newKeyCheckGroup(options []string) *keyCheckGroup {
	g := &keyCheckGroup{Options: options}
	for _, o := range options {
		g.checks = append(g.checks, newDialogCheck(o, func(bool) { g.read() }))
	}
	g.ExtendBaseWidget(g)
	return g
}

// SetSelected ticks the options in on and no others.
func (g *keyCheckGroup) SetSelected(on []string) {
	for i, o := range g.Options {
		g.checks[i].SetChecked(slices.Contains(on, o))
	}
	g.read()
}

func (g *keyCheckGroup) read() {
	g.Selected = g.Selected[:0]
	for i, o := range g.Options {
		if g.checks[i].Checked {
			g.Selected = append(g.Selected, o)
		}
	}
}

// CreateRenderer is Fyne's hook; see fyne.Widget.
func (g *keyCheckGroup) CreateRenderer() fyne.WidgetRenderer {
	objs := make([]fyne.CanvasObject, len(g.checks))
	for i, c := range g.checks {
		objs[i] = c
	}
	if g.Horizontal {
		return widget.NewSimpleRenderer(container.NewHBox(objs...))
	}
	return widget.NewSimpleRenderer(container.NewVBox(objs...))
}
