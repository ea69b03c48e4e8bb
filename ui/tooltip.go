package ui

import (
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// Fyne 2.7 has no tooltips. A mirror's cell cut short ("Waiting: The
// server refused the co…") shows its whole text in a tooltip when the
// mouse rests on it: a box drawn in a layer over the window that takes
// no clicks, so the click after a tooltip still reaches the row under it.
// A queue row's whole name and state are in the details pane.

// tipDelay is how long the mouse rests on a cut cell before its tooltip
// shows.
const tipDelay = 500 * time.Millisecond

// tipLayer is a window's tooltip: one box over the whole content.
type tipLayer struct {
	Layer *fyne.Container // over the window's content, laid out by hand
	back  *canvas.Rectangle
	text  *canvas.Text
	timer *time.Timer
	// Text is the tooltip showing or about to show; "" for none.
	Text string
}

func newTipLayer() *tipLayer {
	l := &tipLayer{back: canvas.NewRectangle(theme.Color(theme.ColorNameMenuBackground)), text: canvas.NewText("", theme.Color(theme.ColorNameForeground))}
	l.back.StrokeColor = theme.Color(theme.ColorNameInputBorder)
	l.back.StrokeWidth = 1
	l.back.CornerRadius = 3
	l.Layer = container.NewWithoutLayout(l.back, l.text)
	l.back.Hide()
	l.text.Hide()
	return l
}

// show shows text near at (absolute) after tipDelay, unless hide or
// another show comes first.
func (l *tipLayer) show(text string, at fyne.Position) {
	if text == l.Text {
		return
	}
	l.hide()
	l.Text = text
	l.timer = time.AfterFunc(tipDelay, func() {
		fyne.Do(func() {
			if l.Text == text {
				l.place(text, at)
			}
		})
	})
}

func (l *tipLayer) place(text string, at fyne.Position) {
	pad := theme.InnerPadding() / 2
	l.text.Text = text
	l.text.TextSize = theme.TextSize()
	l.text.Color = theme.Color(theme.ColorNameForeground)
	l.back.FillColor = theme.Color(theme.ColorNameMenuBackground)
	l.back.StrokeColor = theme.Color(theme.ColorNameInputBorder)
	size := fyne.MeasureText(text, l.text.TextSize, l.text.TextStyle)
	box := fyne.NewSize(size.Width+2*pad, size.Height+2*pad)
	area := l.Layer.Size()
	at = at.Subtract(fyne.CurrentApp().Driver().AbsolutePositionForObject(l.Layer))
	pos := fyne.NewPos(at.X+12, at.Y+18)
	if pos.X+box.Width > area.Width {
		pos.X = max(0, area.Width-box.Width)
	}
	if pos.Y+box.Height > area.Height {
		pos.Y = max(0, at.Y-box.Height-6)
	}
	l.back.Resize(box)
	l.back.Move(pos)
	l.text.Resize(size)
	l.text.Move(pos.AddXY(pad, pad))
	l.back.Show()
	l.text.Show()
	l.Layer.Refresh()
}

// hide takes the tooltip away, or keeps it from showing.
func (l *tipLayer) hide() {
	if l.timer != nil {
		l.timer.Stop()
		l.timer = nil
	}
	l.Text = ""
	if l.back.Visible() {
		l.back.Hide()
		l.text.Hide()
		l.Layer.Refresh()
	}
}

// tipsFor is the tooltip layer of the window o is shown in; nil when it
// is in none (a test's bare canvas).
func tipsFor(o fyne.CanvasObject) *tipLayer {
	if c := fyne.CurrentApp().Driver().CanvasForObject(o); c != nil {
		if w := windowOf(c); w != nil {
			return w.tips
		}
	}
	return nil
}

// cutText is the whole text of cell i of a row when the cell shows it
// cut short, or differently (the Added column's date alone); "" when the
// cell shows it all.
type cutText func(i int) string

// isCut reports whether text, written in a cell of width w at the
// theme's text size, is cut short there.
func isCut(text string, w float32) bool { return cutAt(text, theme.TextSize(), fyne.TextStyle{}, w) }

// cutAt reports whether text, written at size in style in a cell of
// width w, is cut short there.
func cutAt(text string, size float32, style fyne.TextStyle, w float32) bool {
	return fyne.MeasureText(text, size, style).Width > w-2*theme.InnerPadding()
}

// tipRow is a row whose cells cut short show their whole text in a
// tooltip. The queue's rows are not: a row that is Hoverable as well as
// Draggable no longer showed the line where a dragged row will land.
type tipRow struct {
	row
	// at is where the mouse rests on the row; nil when it is not on it.
	at *desktop.MouseEvent
}

// MouseIn is Fyne's hook; see desktop.Hoverable.
func (r *tipRow) MouseIn(e *desktop.MouseEvent) { r.MouseMoved(e) }

// MouseMoved is Fyne's hook; see desktop.Hoverable. It finds the cell
// under the mouse and shows its whole text when the cell cuts it.
func (r *tipRow) MouseMoved(e *desktop.MouseEvent) {
	at := *e
	r.at = &at
	r.tip()
}

// retip follows a row's new texts with the mouse resting on it: a
// mirror's state that turns from "Active" to "Waiting: The server
// refused the co…" under a still mouse shows its tooltip then, and one
// no longer cut loses it. Rows call it when they are updated.
func (r *tipRow) retip() {
	if r.at != nil {
		r.tip()
	}
}

func (r *tipRow) tip() {
	if r.cells == nil || r.whole == nil {
		return
	}
	tips := tipsFor(r.super)
	if tips == nil {
		return
	}
	for i, o := range r.cells.Objects {
		p, s := o.Position(), o.Size()
		if r.at.Position.X >= p.X && r.at.Position.X < p.X+s.Width {
			if text := r.whole(i); text != "" {
				tips.show(text, r.at.AbsolutePosition)
				return
			}
			break
		}
	}
	tips.hide()
}

// MouseOut is Fyne's hook; see desktop.Hoverable.
func (r *tipRow) MouseOut() {
	r.at = nil
	if tips := tipsFor(r.super); tips != nil {
		tips.hide()
	}
}

// TipLabel is a label cut short with an ellipsis that shows its whole
// text in a tooltip when the mouse rests on it: the details' and the
// picker's titles, a long file name in bold.
type TipLabel struct {
	widget.Label
}

// NewTitle returns a bold sub-heading TipLabel: a pane's title.
func NewTitle(text string) *TipLabel {
	l := &TipLabel{}
	l.Text, l.Alignment, l.TextStyle = text, fyne.TextAlignLeading, fyne.TextStyle{Bold: true}
	l.SizeName = theme.SizeNameSubHeadingText
	l.Truncation = fyne.TextTruncateEllipsis
	l.ExtendBaseWidget(l)
	return l
}

// cut reports whether the label shows its text cut short.
func (l *TipLabel) cut() bool {
	size := theme.TextSize()
	if l.SizeName != "" {
		size = theme.Size(l.SizeName)
	}
	return cutAt(l.Text, size, l.TextStyle, l.Size().Width)
}

// MouseIn is Fyne's hook; see desktop.Hoverable.
func (l *TipLabel) MouseIn(e *desktop.MouseEvent) { l.MouseMoved(e) }

// MouseMoved is Fyne's hook; see desktop.Hoverable.
func (l *TipLabel) MouseMoved(e *desktop.MouseEvent) {
	tips := tipsFor(l)
	if tips == nil {
		return
	}
	if l.cut() {
		tips.show(l.Text, e.AbsolutePosition)
	} else {
		tips.hide()
	}
}

// MouseOut is Fyne's hook; see desktop.Hoverable.
func (l *TipLabel) MouseOut() {
	if tips := tipsFor(l); tips != nil {
		tips.hide()
	}
}
