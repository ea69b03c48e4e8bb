package ui

import (
	"fmt"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// Bar is a slim progress bar with its percentage beside it, coloured by
// what the progress means (downloading, done, failed, waiting). Fyne's
// ProgressBar is a full-height button-like block; in a list of hundreds of
// rows a thin line reads calmer.
//
// Value and Color are its state; set them and Refresh on the UI goroutine.
type Bar struct {
	widget.BaseWidget
	Value float64             // in [0, 1]; below 0: not known, no percentage
	Color fyne.ThemeColorName // of the filled part
}

// NewBar returns an empty bar in the primary colour.
func NewBar() *Bar {
	LoadTranslations()
	b := &Bar{Color: theme.ColorNamePrimary}
	b.ExtendBaseWidget(b)
	return b
}

// Set changes the value and colour, redrawing only on a change; a value
// below 0 shows an empty bar without a percentage (a size not known yet).
func (b *Bar) Set(v float64, c fyne.ThemeColorName) {
	v = min(1, max(-1, v))
	if v < 0 {
		v = -1
	}
	if v == b.Value && c == b.Color {
		return
	}
	b.Value, b.Color = v, c
	b.Refresh()
}

// CreateRenderer is Fyne's hook; see fyne.Widget.
func (b *Bar) CreateRenderer() fyne.WidgetRenderer {
	r := &barRenderer{
		b:     b,
		track: canvas.NewRectangle(nil),
		fill:  canvas.NewRectangle(nil),
		text:  canvas.NewText("", nil),
	}
	r.text.Alignment = fyne.TextAlignTrailing
	r.Refresh()
	return r
}

type barRenderer struct {
	b           *Bar
	track, fill *canvas.Rectangle
	text        *canvas.Text
}

const (
	barHeight    = 6
	barTextWidth = 40
)

func (r *barRenderer) Layout(size fyne.Size) {
	w := max(0, size.Width-barTextWidth-theme.Padding())
	y := (size.Height - barHeight) / 2
	r.track.Move(fyne.NewPos(0, y))
	r.track.Resize(fyne.NewSize(w, barHeight))
	r.fill.Move(fyne.NewPos(0, y))
	r.fill.Resize(fyne.NewSize(w*float32(max(0, r.b.Value)), barHeight))
	ts := r.text.MinSize()
	r.text.Move(fyne.NewPos(size.Width-barTextWidth, (size.Height-ts.Height)/2))
	r.text.Resize(fyne.NewSize(barTextWidth, ts.Height))
}

func (r *barRenderer) MinSize() fyne.Size {
	return fyne.NewSize(60+barTextWidth, max(barHeight, r.text.MinSize().Height))
}

func (r *barRenderer) Refresh() {
	th := r.b.Theme()
	v := fyne.CurrentApp().Settings().ThemeVariant()
	r.track.FillColor = th.Color(theme.ColorNameInputBorder, v)
	r.track.CornerRadius = barHeight / 2
	r.fill.FillColor = th.Color(r.b.Color, v)
	r.fill.CornerRadius = barHeight / 2
	r.text.Text = ""
	if r.b.Value >= 0 {
		r.text.Text = fmt.Sprintf("%d%%", int(r.b.Value*100))
	}
	r.text.Color = th.Color(theme.ColorNamePlaceHolder, v)
	r.text.TextSize = th.Size(theme.SizeNameCaptionText)
	r.Layout(r.b.Size())
	r.track.Refresh()
	r.fill.Refresh()
	r.text.Refresh()
}

func (r *barRenderer) Objects() []fyne.CanvasObject {
	return []fyne.CanvasObject{r.track, r.fill, r.text}
}

func (r *barRenderer) Destroy() {}

// newStyled returns a one-line text whose colour follows a theme colour
// name (labels only know a few importances).
func newStyled(align fyne.TextAlign) *widget.RichText {
	rt := widget.NewRichText(&widget.TextSegment{Style: widget.RichTextStyle{Alignment: align, Inline: true}})
	rt.Truncation = fyne.TextTruncateEllipsis
	return rt
}

// setStyled changes a newStyled text and its colour.
func setStyled(rt *widget.RichText, text string, c fyne.ThemeColorName) {
	seg := rt.Segments[0].(*widget.TextSegment)
	if seg.Text == text && seg.Style.ColorName == c {
		return
	}
	seg.Text, seg.Style.ColorName = text, c
	rt.Refresh()
}
